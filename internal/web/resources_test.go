package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/testkit"
)

// TestSettingsResources, on real pi 1.6.0: the model titles switch is
// off and turns on in piweb's preferences; an MCP server switched off
// is written as pi's /mcp writes it; a skill disabled on the
// settings page is written as `pi config` writes it ("-skills/…" in
// settings.json), shown disabled, and gone from what a fresh pi lists
// over RPC (get_commands, the page's "Skills"), until pi config --local's
// "load" for this project brings it back there; a local pi package
// installed there through `pi install` is listed by pi (its prompt
// template among pi's commands) and can be removed again; a source that
// cannot be fetched shows pi's own error.
func TestSettingsResources(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newPi16Rig(t)
	skill := filepath.Join(r.agentDir, "skills", "alpha", "SKILL.md")
	testkit.WriteFile(t, skill, "---\nname: alpha\ndescription: the alpha skill\n---\nDo alpha.\n")
	testkit.WriteFile(t, filepath.Join(r.agentDir, "mcp.json"), `{"mcpServers":{"user-files":{"command":"piweb-no-such-server"}}}`)
	pkg := filepath.Join(filepath.Dir(r.cwd), "pkgx")
	testkit.WriteFile(t, filepath.Join(pkg, "package.json"), `{"name":"pkgx","version":"1.0.0"}`)
	testkit.WriteFile(t, filepath.Join(pkg, "prompts", "pkgprompt.md"), "---\ndescription: from pkgx\n---\nP\n")

	if err := agent.TrustProject(r.agentDir, r.cwd); err != nil {
		t.Fatal(err)
	}
	// The project the page last chose (no session lists it yet).
	r.open(t, "/settings")
	eval[bool](t, r.browser, fmt.Sprintf(`(localStorage.setItem('piweb.settings.cwd', %q), true)`, r.cwd))
	r.open(t, "/settings")
	// piweb's own switch for model-made titles: off, then on in its prefs.
	r.waitJS(t, `document.querySelector('.set-model-titles') && !document.querySelector('.set-model-titles').checked`)
	r.click(t, ".set-model-titles")
	testkit.Eventually(t, func() error {
		if p, err := r.client().Prefs(t.Context()); err != nil || !p.ModelTitles {
			return fmt.Errorf("prefs %+v (%v)", p, err)
		}
		return nil
	}, 10*time.Second, "the model titles switch")

	box := fmt.Sprintf(`document.querySelector('.res-enabled[data-path=%q]')`, skill)
	waitPi(t, r, box+` && `+box+`.checked`)
	waitPi(t, r, `[...document.querySelectorAll('.set-res[data-kind=skill]')].some((e) => e.innerText.includes('alpha'))`)

	r.click(t, fmt.Sprintf(`.res-enabled[data-path=%q]`, skill))
	waitFile(t, filepath.Join(r.agentDir, "settings.json"), `"-skills/alpha/SKILL.md"`)
	waitPi(t, r, `!`+box+`.checked && `+box+`.closest('li').querySelector('.set-off') !== null`)
	waitPi(t, r, `![...document.querySelectorAll('.set-res[data-kind=skill]')].some((e) => e.innerText.includes('alpha'))`)

	// In this (trusted) project only, pi config --local's "load" brings it
	// back: the project's settings name it, and a fresh pi there lists it.
	setValue(t, r, fmt.Sprintf(`.res-override[data-path=%q]`, skill), "load", "change")
	waitFile(t, filepath.Join(r.cwd, ".pi", "settings.json"), `"+`+skill+`"`)
	waitPi(t, r, `[...document.querySelectorAll('.set-res[data-kind=skill]')].some((e) => e.innerText.includes('alpha'))`)
	waitPi(t, r, box+`.checked`)

	// An MCP server switched off as pi's /mcp does: "enabled": false in
	// the mcp.json that defines it.
	r.click(t, `.mcp-enabled[data-name="user-files"]`)
	waitFile(t, filepath.Join(r.agentDir, "mcp.json"), `"enabled": false`)
	waitPi(t, r, `(document.querySelector('.set-res[data-kind=mcp]')||{innerText:''}).innerText.includes('disabled') && !document.querySelector('.mcp-enabled[data-name="user-files"]').checked`)
	// and on again in this project only: a project override, as /mcp's
	// "Enable in this project" writes it.
	r.click(t, `.mcp-project[data-name="user-files"]`)
	waitFile(t, filepath.Join(r.cwd, ".pi", "mcp.json"), "{\n  \"mcpServers\": {\n    \"user-files\": {\n      \"enabled\": true\n    }\n  }\n}\n")
	// One server, one row: the global server's says what the override
	// makes of it here, and its button flips the override.
	userFiles := `[...document.querySelectorAll('.set-res[data-kind=mcp]')].filter((e) => e.querySelector('.set-res-name').innerText === 'user-files')`
	waitPi(t, r, userFiles+`.length === 1 && `+userFiles+`[0].innerText.includes('in this project: enabled')`)
	waitPi(t, r, `document.querySelector('.mcp-project[data-name="user-files"]').innerText === 'Disable in this project'`)
	r.click(t, `.mcp-project[data-name="user-files"]`)
	waitFile(t, filepath.Join(r.cwd, ".pi", "mcp.json"), "{\n  \"mcpServers\": {\n    \"user-files\": {\n      \"enabled\": false\n    }\n  }\n}\n")
	waitPi(t, r, userFiles+`.length === 1 && `+userFiles+`[0].innerText.includes('in this project: disabled')`)

	// piweb offered as one of pi's MCP servers, added as `pi mcp add`
	// writes it, then said to be there.
	if shooting() {
		eval[bool](t, r.browser, `(document.querySelector('.set-piweb-mcp details').open = true)`)
		eachShot(t, r.browser, 820, func(w int64, scheme string) {
			eval[bool](t, r.browser, `(document.querySelector('.set-piweb-mcp').scrollIntoView({block: 'center'}), true)`)
			r.screenshot(t, shotName("settings-piweb-mcp", w, scheme))
			if w == 390 {
				fitsPhone(t, r.browser, "the piweb MCP offer")
			}
		})
	}
	r.click(t, ".set-piweb-mcp-add")
	waitFile(t, filepath.Join(r.agentDir, "mcp.json"), "\"piweb\": {\n      \"command\": \"/opt/piweb/piweb\",\n      \"args\": [\n        \"mcp\"\n      ],\n      \"exposure\": \"direct\"")
	waitPi(t, r, `document.querySelector('.set-piweb-mcp.added') !== null`)

	typeSource(t, r, pkg)
	r.click(t, ".set-pkg-install")
	waitPi(t, r, `!!document.querySelector('.set-pkg-run.ok')`)
	waitFile(t, filepath.Join(r.agentDir, "settings.json"), `"../pkgx"`)
	waitPi(t, r, `[...document.querySelectorAll('.set-pkg')].some((e) => e.innerText.includes('pkgx'))`)
	waitPi(t, r, `[...document.querySelectorAll('.set-res[data-kind=prompt]')].some((e) => e.innerText.includes('pkgprompt'))`)
	out := eval[string](t, r.browser, `document.querySelector('.set-pkg-output').innerText`)
	if !strings.Contains(out, "Installed "+pkg) {
		t.Errorf("pi's output shown: %q", out)
	}
	if shooting() {
		shootResources(t, r)
	}

	typeSource(t, r, "https://127.0.0.1:9/no/repo")
	r.click(t, ".set-pkg-install")
	waitPi(t, r, `(document.querySelector('.set-pkg-run.bad .set-pkg-output')||{innerText:''}).innerText.includes('Error: git clone')`)

	r.click(t, ".set-pkg-remove")
	r.click(t, ".dialog .btn.danger")
	waitFile(t, filepath.Join(r.agentDir, "settings.json"), `"packages": []`)
	waitPi(t, r, `![...document.querySelectorAll('.set-res[data-kind=prompt]')].some((e) => e.innerText.includes('pkgprompt'))`)
}

// typeSource types a package source into the install field.
func typeSource(t *testing.T, r *chatRig, src string) {
	t.Helper()
	setValue(t, r, ".set-pkg-source", src, "input")
	r.waitJS(t, `!document.querySelector('.set-pkg-install').disabled`)
}

// shootResources photographs the resources section at 1280 and 390 px,
// light and dark.
func shootResources(t *testing.T, r *chatRig) {
	eachShot(t, r.browser, 820, func(w int64, scheme string) {
		eval[bool](t, r.browser, `(document.querySelector('.set-res-switches').scrollIntoView(), true)`)
		r.screenshot(t, shotName("settings-resources", w, scheme))
		eval[bool](t, r.browser, `(document.querySelector('.set-res[data-kind=mcp]').scrollIntoView({block: 'center'}), true)`)
		r.screenshot(t, shotName("settings-mcp", w, scheme))
		eval[bool](t, r.browser, `(document.querySelector('.set-pkg-run').scrollIntoView({block: 'end'}), true)`)
		r.screenshot(t, shotName("settings-packages", w, scheme))
		if w == 390 {
			fitsPhone(t, r.browser, "resources section")
		}
	})
}

// waitPi waits up to 90 s for js, a state that comes after pi answered:
// each listing starts a pi and runs pi's package manager, which under a
// loaded machine takes longer than waitJS's 20 s.
func waitPi(t *testing.T, r *chatRig, js string) {
	t.Helper()
	testkit.Eventually(t, func() error {
		if eval[bool](t, r.browser, `(() => { try { return !!(`+js+`); } catch (e) { return false; } })()`) {
			return nil
		}
		return fmt.Errorf("not yet: %s", js)
	}, 90*time.Second, "the page after pi's answer")
}

// waitFile waits up to 90 s (a write follows pi's listing) until the file
// at path holds text.
func waitFile(t *testing.T, path, text string) {
	t.Helper()
	testkit.Eventually(t, func() error {
		if b, _ := os.ReadFile(path); !strings.Contains(string(b), text) {
			return fmt.Errorf("%s: %s", filepath.Base(path), b)
		}
		return nil
	}, 90*time.Second, filepath.Base(path)+" holding "+text)
}
