package web

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// TestSettingsPage, on real pi 1.6.0: an API key added on the settings
// page makes pi list the provider's models (and "Test" reaches the model
// through pi), a model disabled there leaves the pickers, and a setting
// changed there is in pi's settings.json and used by the next pi. The key
// never comes back to the page.
func TestSettingsPage(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newPi16Rig(t)
	models := filepath.Join(r.agentDir, "models.json")
	var cfg map[string]any
	b, _ := os.ReadFile(models)
	json.Unmarshal(b, &cfg)
	delete(cfg["providers"].(map[string]any)[fakellm.Provider].(map[string]any), "apiKey")
	b, _ = json.MarshalIndent(cfg, "", "  ")
	os.WriteFile(models, b, 0o600)
	const key = "fake-key" // the fake accepts any key; this is the one pi sends

	// Opened from an error's "No API key" link: the form adding fake's key
	// is chosen and marked.
	r.openReady(t, "/settings?provider=fake", `!!document.querySelector('.set-add-provider option[value=fake]')`)
	r.waitJS(t, `document.querySelector('.set-add-key.wanted .set-add-provider')?.value === 'fake' && !!document.querySelector('.set-add-key .set-key-input')`)
	if shooting() {
		shootAll(t, r.browser, "settings-no-key")
	}
	if eval[bool](t, r.browser, `!!document.querySelector('.set-prov[data-provider=fake]')`) {
		t.Fatal("fake is listed as configured before it has a key")
	}
	setValue(t, r, ".set-add-provider", "fake", "change")
	r.waitJS(t, `!!document.querySelector('.set-add-key .set-key-input')`)
	setValue(t, r, ".set-add-key .set-key-input", key, "input")
	r.click(t, ".set-add-key button[type=submit]")
	r.waitJS(t, `(document.querySelector('.set-prov[data-provider=fake]')||{innerText:''}).innerText.includes('2 models')`)
	if auth, _ := os.ReadFile(filepath.Join(r.agentDir, "auth.json")); !strings.Contains(string(auth), `"key": "fake-key"`) {
		t.Errorf("auth.json = %s", auth)
	}
	if eval[bool](t, r.browser, fmt.Sprintf(`document.documentElement.outerHTML.includes(%q) || [...document.querySelectorAll('input')].some((i) => i.value.includes(%q))`, key, key)) {
		t.Error("the stored key reached the page")
	}

	r.llm.Enqueue(fakellm.Text("OK"))
	r.click(t, ".set-prov[data-provider=fake] .set-test-btn")
	r.waitJS(t, `!!document.querySelector('.set-prov[data-provider=fake] .set-test.ok')`)

	// Disable the thinker: settings.json lists the other model, and the new
	// session picker no longer offers it.
	r.click(t, `.model-enabled[data-model="fake/fake-thinker"]`)
	waitSettings(t, r, func(s map[string]any) bool { return fmt.Sprint(s["enabledModels"]) == "[fake/fake-model]" })
	r.waitJS(t, `!document.querySelector('.model-enabled[data-model="fake/fake-thinker"]').checked`)
	r.open(t, "/")
	r.click(t, ".home .new-session")
	r.waitJS(t, `document.querySelectorAll('.new-session-dialog select[name=model] option').length === 2`)
	opts := eval[string](t, r.browser, `[...document.querySelectorAll('.new-session-dialog select[name=model] option')].map((o) => o.value).join(',')`)
	if opts != ",fake/fake-model" {
		t.Errorf("new session picker offers %q", opts)
	}

	// A setting: steering mode "all" lands in settings.json and the next
	// pi runs with it.
	r.openReady(t, "/settings", `!!document.getElementById('set-steeringMode')`)
	setValue(t, r, "#set-steeringMode", "all", "change")
	waitSettings(t, r, func(s map[string]any) bool { return s["steeringMode"] == "all" })
	r.llm.Enqueue(fakellm.Text("Steering checked."))
	id := r.startSession(t, "check steering")
	r.waitText(t, "Steering checked.")
	if st := r.command(t, id, map[string]any{"type": "get_state"}); st["steeringMode"] != "all" {
		t.Errorf("pi's state: %v", st)
	}
	// Resources: a prompt template in the agent dir is listed for the
	// project with where it comes from; so is an MCP server of mcp.json.
	testkit.WriteFile(t, filepath.Join(r.agentDir, "prompts", "user-prompt.md"), "---\ndescription: a user prompt\n---\nDo it.\n")
	testkit.WriteFile(t, filepath.Join(r.agentDir, "mcp.json"), `{"mcpServers":{"user-files":{"command":"piweb-no-such-server"}}}`)
	setSetting(t, r, "compaction", map[string]any{"keepRecentTokens": 20017}) // found by its value below
	r.openReady(t, "/settings", fmt.Sprintf(`!!document.querySelector('.set-project-select option[value=%q]')`, r.cwd))
	setValue(t, r, ".set-project-select", r.cwd, "change")
	r.waitJS(t, `[...document.querySelectorAll('.set-res[data-kind=prompt]')].some((e) => e.innerText.includes('user-prompt') && e.innerText.includes('user'))`)
	r.waitJS(t, `[...document.querySelectorAll('.set-res[data-kind=mcp]')].some((e) => e.innerText.includes('user-files') && e.innerText.includes('piweb-no-such-server'))`)
	checkSettingsLayout(t, r)
	if shooting() {
		r.openReady(t, "/settings", `!!document.getElementById('set-steeringMode')`)
		shootSettings(t, r)
	}
	testLanguages(t, r.browser, "/s/"+id)
}

// checkSettingsLayout, with a project chosen (issue 25): the sections'
// navigation scrolls to one; each setting is listed once, the project's
// value beside the global one; the search box keeps the settings it
// names; the Extensions count is what is listed; nothing inside the page
// scrolls on its own; at 390 px the navigation is a select and nothing
// sticks out.
func checkSettingsLayout(t *testing.T, r *chatRig) {
	t.Helper()
	if n := r.count(t, `.set-nav-list a`); n != 6 {
		t.Errorf("%d sections in the navigation", n)
	}
	r.click(t, `.set-nav-list a[href="?section=agent"]`)
	r.waitJS(t, `Math.abs(document.getElementById('set-agent').getBoundingClientRect().top - document.querySelector('.settings-body').getBoundingClientRect().top) < 30 && document.querySelector('.set-nav-list a.on')?.getAttribute('href') === '?section=agent'`)
	once := eval[string](t, r.browser, `[...document.querySelectorAll('.set-row[data-key]')].map((e) => e.dataset.key).filter((k, i, a) => a.indexOf(k) !== i).join(',')`)
	if once != "" {
		t.Errorf("settings listed twice: %s", once)
	}
	r.waitJS(t, `document.querySelectorAll('.set-row[data-key=steeringMode] select').length === 2 && document.querySelector('.set-row[data-key=steeringMode]').innerText.includes('Steering messages')`)
	setValue(t, r, ".set-search", "retry", "input")
	r.waitJS(t, `!document.querySelector('.set-providers') && [...document.querySelectorAll('.set-row[data-key]')].every((e) => e.dataset.key.startsWith('retry.')) && document.querySelectorAll('.set-row[data-key]').length === 4`)
	setValue(t, r, ".set-search", "20017", "input") // a value, typed in settings.json
	r.waitJS(t, `[...document.querySelectorAll('.set-row[data-key]')].map((e) => e.dataset.key).join() === 'compaction.keepRecentTokens'`)
	setValue(t, r, ".set-search", "no such setting at all", "input")
	r.waitJS(t, `getComputedStyle(document.querySelector('.set-nomatch')).display !== 'none' && !document.querySelector('.set-section:not([hidden])')`)
	setValue(t, r, ".set-search", "user-prompt", "input") // a resource, by name
	r.waitJS(t, `!document.querySelector('.set-agent') && !document.querySelector('.set-resources').hidden && [...document.querySelectorAll('.set-res')].every((e) => e.innerText.includes('user-prompt'))`)
	setValue(t, r, ".set-search", "", "input")
	r.waitJS(t, `!!document.querySelector('.set-providers') && [...document.querySelectorAll('.set-resources h3')].some((h) => h.innerText.startsWith('Extensions '))`)
	// At the top of the page, a search that leaves one section marks it in
	// the navigation (nothing scrolls, so the scroll spy alone did not).
	eval[bool](t, r.browser, `(document.querySelector('.settings-body').scrollTop = 0, true)`)
	r.waitJS(t, `document.querySelector('.set-nav-list a.on')?.getAttribute('href') === '?section=providers'`)
	setValue(t, r, ".set-search", "modelTitles", "input")
	r.waitJS(t, `!document.querySelector('.set-providers') && document.querySelector('.set-nav-list a.on')?.getAttribute('href') === '?section=piweb'`)
	setValue(t, r, ".set-search", "", "input")
	ext := eval[[]int](t, r.browser, `[Number(([...document.querySelectorAll('.set-resources h3')].find((h) => h.innerText.startsWith('Extensions '))?.querySelector('.muted').innerText)), document.querySelectorAll('.set-res[data-kind=installed-extension]').length]`)
	if ext[0] != ext[1] || ext[0] == 0 {
		t.Errorf("Extensions says %d, lists %d (pi has built-in ones)", ext[0], ext[1])
	}
	if s := eval[string](t, r.browser, nestedScrollJS(".settings-body")); s != "" {
		t.Errorf("scroll areas inside the settings page: %s", s)
	}
	r.run(t, chromedp.EmulateViewport(390, 844))
	r.waitJS(t, `getComputedStyle(document.querySelector('.set-nav-select')).display !== 'none' && getComputedStyle(document.querySelector('.set-nav-list')).display === 'none'`)
	fitsPhone(t, r.browser, "settings page")
	r.run(t, chromedp.EmulateViewport(1280, 800))
}

// nestedScrollJS lists the elements under sel that scroll on their own.
func nestedScrollJS(sel string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%q)].filter((e) => { const s = getComputedStyle(e); return (/auto|scroll/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1) || (/auto|scroll/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1); }).map((e) => e.className).join(', ')`, sel+" *")
}

// setValue sets a form control's value as a user would and fires ev.
func setValue(t *testing.T, r *chatRig, sel, v, ev string) {
	t.Helper()
	eval[bool](t, r.browser, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event(%q, {bubbles: true})); return true; })()`, sel, v, ev))
}

// setSetting sets a key of pi's settings.json as a person would type it.
func setSetting(t *testing.T, r *chatRig, key string, v any) {
	t.Helper()
	path := filepath.Join(r.agentDir, "settings.json")
	s := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
	}
	s[key] = v
	b, _ := json.Marshal(s)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitSettings waits until pi's settings.json satisfies ok.
func waitSettings(t *testing.T, r *chatRig, ok func(map[string]any) bool) {
	t.Helper()
	testkit.Eventually(t, func() error {
		b, err := os.ReadFile(filepath.Join(r.agentDir, "settings.json"))
		var s map[string]any
		if err == nil {
			err = json.Unmarshal(b, &s)
		}
		if err != nil || !ok(s) {
			return fmt.Errorf("settings.json: %s %v", b, err)
		}
		return nil
	}, 15*time.Second, "settings.json")
}

// shootSettings photographs the settings page at 1280 and 390 px, light
// and dark, its top and its end.
func shootSettings(t *testing.T, r *chatRig) {
	eachShot(t, r.browser, 820, func(w int64, scheme string) {
		eval[bool](t, r.browser, `(document.querySelector('.settings-body').scrollTop = 0, true)`)
		r.screenshot(t, shotName("settings-top", w, scheme))
		eval[bool](t, r.browser, `(document.querySelector('.set-project').scrollIntoView(), true)`)
		r.screenshot(t, shotName("settings-end", w, scheme))
		if w == 390 {
			fitsPhone(t, r.browser, "settings page")
		}
	})
}
