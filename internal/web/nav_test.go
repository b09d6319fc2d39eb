package web

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"piweb/pisession"
)

func testTreePanelAndBranches(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	r.click(t, `.sess-actions button[title^=Tree]`)
	r.waitJS(t, `document.querySelector('.tree .tnode')`)
	// Labels show, the current path is highlighted, linear runs compressed.
	if got := r.text(t, `.tnode[data-id=f202c394]`); !strings.Contains(got, "start") {
		t.Logf("label on f202c394: %q (cleared later in the file, so absent is right)", got)
	}
	if n := r.count(t, `.tnode.on-path`); n == 0 {
		t.Error("current path not highlighted")
	}
	entries := eval[int](t, r.browser, `parseInt(document.querySelector('.tree-panel .panel-head .muted').textContent)`)
	if n := r.count(t, `.tnode`); n >= entries {
		t.Errorf("%d of %d entries shown: runs not compressed", n, entries)
	}
	r.click(t, `.tree-panel .check input`)
	r.waitJS(t, fmt.Sprintf(`document.querySelectorAll('.tnode').length === %d`, entries))
	r.click(t, `.tree-panel .check input`)
	r.waitJS(t, fmt.Sprintf(`document.querySelectorAll('.tnode').length < %d`, entries))
	// The second branch of the branch point starts with a mark, since both
	// branches share a depth.
	if got := eval[[]string](t, r.browser, `[...document.querySelectorAll('.tnode.branch-start')].map((e) => e.innerText)`); len(got) != 1 || !strings.Contains(got[0], "explored a different") {
		t.Errorf("branch starts %q, want the branch summary's", got)
	}
	// Choosing the node on the other branch reads that branch.
	r.click(t, `.tnode[data-id=efd166e1] button`)
	r.waitJS(t, `location.search.includes('leaf=')`)
	r.waitJS(t, `document.querySelector('.card.compaction')`)
	if !strings.Contains(eval[string](t, r.browser, `location.hash`), "efd166e1") {
		t.Error("hash not set to the chosen node")
	}
	// The tree is decoded after the messages are drawn.
	r.waitJS(t, `document.querySelector('.tnode.on-path[data-id=efd166e1]')`)
	// The URL survives a reload, and shared (opened without this browser's
	// local state) shows the same branch scrolled to the same entry.
	url := eval[string](t, r.browser, `location.pathname + location.search + location.hash`)
	for _, shared := range []bool{false, true} {
		if shared {
			eval[bool](t, r.browser, `(localStorage.clear(), true)`)
		}
		r.openReady(t, url, `document.querySelector('.card.compaction') && document.querySelector('#e-efd166e1.flash')`)
		if got := eval[string](t, r.browser, `location.pathname + location.search + location.hash`); got != url {
			t.Errorf("reloaded at %s, now %s", url, got)
		}
		r.waitJS(t, `(() => { const c = document.querySelector('.conv').getBoundingClientRect(), e = document.querySelector('#e-efd166e1').getBoundingClientRect();
			return e.top >= c.top && e.bottom <= c.bottom; })()`)
		if !shared {
			r.waitJS(t, `document.querySelector('.tnode.on-path[data-id=efd166e1]')`) // the panel stays open
		}
	}
	// Real pi's forks (rpc s04) name their parents by paths in the folder
	// pi wrote them in, not this one: the lineage still links them both
	// ways, through the ids in those file names.
	for _, c := range []struct{ id, links string }{
		{piFork2, "/s/" + piForkRoot + " /s/" + piFork1},
		{piFork1, "/s/" + piForkRoot + " /s/" + piFork2},
	} {
		eval[bool](t, r.browser, `(localStorage.setItem('piweb.panel', 'tree'), true)`)
		r.openReady(t, "/s/"+c.id, fmt.Sprintf(`[...document.querySelectorAll('.lineage a')].map((a) => a.getAttribute('href')).join(' ') === %q`, c.links))
	}
	if got := r.text(t, `.lineage`); !strings.Contains(got, "Forked from") || !strings.Contains(got, "Forks of this session") {
		t.Errorf("lineage of %s reads %q", piFork1, got)
	}
}

func testSearchOpensHitOnItsBranch(t *testing.T, r *rig) {
	r.openReady(t, "/", `document.querySelector('.sess')`)
	cases := []struct{ query, session, entry string }{
		{"after branch", basicID, "dd05f903"},    // current branch
		{"second question", basicID, "efd166e1"}, // abandoned branch
	}
	for _, c := range cases {
		r.run(t, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
		r.waitJS(t, `document.querySelector('.dialog.search input')`)
		r.run(t, chromedp.SendKeys(`.dialog.search input`, c.query))
		r.waitJS(t, `document.querySelector('.hit mark')`)
		if got := eval[string](t, r.browser, `[...document.querySelector('.hit').querySelectorAll('mark')].map(m => m.textContent).join(' ')`); !strings.EqualFold(got, c.query) {
			t.Errorf("highlight %q for %q", got, c.query)
		}
		// Move to the hit in this session (a fork holds the same entries).
		sel := fmt.Sprintf(`.hit[data-session=%q][data-entry=%q]`, c.session, c.entry)
		r.waitJS(t, fmt.Sprintf(`document.querySelector(%q)`, sel))
		if meta := r.text(t, sel+` .hit-meta`); !regexp.MustCompile(`^proj · (just now|\d+\w+ ago)$`).MatchString(meta) {
			t.Errorf("hit's project and date %q", meta)
		}
		for i := 0; i < 20 && !eval[bool](t, r.browser, fmt.Sprintf(`document.querySelector(%q).classList.contains('sel')`, sel)); i++ {
			r.run(t, chromedp.KeyEvent(kb.ArrowDown))
		}
		r.run(t, chromedp.KeyEvent("\r"))
		r.waitJS(t, fmt.Sprintf(`location.hash === '#%s' && document.querySelector('#e-%s.flash')`, c.entry, c.entry))
		if !strings.Contains(eval[string](t, r.browser, `location.pathname`), c.session) {
			t.Errorf("%q opened %s", c.query, eval[string](t, r.browser, `location.href`))
		}
	}
}

func testSearchHitInsideCompaction(t *testing.T, r *rig) {
	file := r.sessionFile(t, compactID)
	s, err := pisession.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Context("")
	var hidden string
	for _, e := range s.PathTo(s.Leaf()) {
		if e.Type == "message" && e.Role() == "user" && !contains(c.EntryIDs, e.ID) {
			hidden = e.ID
			break
		}
	}
	if hidden == "" {
		t.Fatal("fixture has no compacted user message")
	}
	r.openReady(t, "/s/"+compactID+"#"+hidden, fmt.Sprintf(`document.querySelector('.hidden-history #e-%s.flash')`, hidden))
	// The same through search, from another page.
	text := eval[string](t, r.browser, fmt.Sprintf(`document.querySelector('#e-%s .bubble').innerText`, hidden))
	r.openReady(t, "/", `document.querySelector('.sess')`)
	r.run(t, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	r.run(t, chromedp.SendKeys(`.dialog.search input`, text))
	sel := fmt.Sprintf(`.hit[data-session=%q][data-entry=%q]`, compactID, hidden)
	r.waitJS(t, fmt.Sprintf(`document.querySelector(%q)`, sel))
	r.click(t, sel)
	r.waitJS(t, fmt.Sprintf(`location.pathname === '/s/%s' && document.querySelector('.hidden-history #e-%s.flash')`, compactID, hidden))
}

// testHeaderActions renames inline, exports, deletes and undoes, on a
// session of its own.
func testHeaderActions(t *testing.T, r *rig) {
	id := writeSession(t, r.dir, "/tmp/header", []map[string]any{
		{"role": "user", "content": "header actions", "timestamp": 1},
		{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "api": "x", "provider": "p", "model": "m", "usage": usage(), "stopReason": "stop", "timestamp": 2},
	})
	r.openSession(t, id, `document.querySelector('.row')`)
	// Rename inline.
	r.click(t, `.sess-name`)
	r.waitJS(t, `document.activeElement && document.activeElement.matches('.rename input')`)
	eval[bool](t, r.browser, `(document.activeElement.value = '', true)`)
	r.run(t, chromedp.SendKeys(`.rename input`, "Renamed here\r"))
	r.waitJS(t, `document.querySelector('.sess-name') && document.querySelector('.sess-name').innerText.includes('Renamed here')`)
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.sess[data-id=%q]').innerText.includes('Renamed here')`, id))
	// Exports are links to files.
	for _, f := range []string{"md", "html", "jsonl"} {
		r.click(t, `.menu > button`)
		href := eval[string](t, r.browser, fmt.Sprintf(`[...document.querySelectorAll('.menu-pop a[download]')].map(a => a.getAttribute('href')).find(h => h.includes('format=%s')) || ''`, f))
		r.click(t, `.menu > button`)
		if code := eval[int](t, r.browser, fmt.Sprintf(`fetch(%q).then(r => r.status)`, href)); href == "" || code != 200 {
			t.Errorf("export %s: %q answers %d", f, href, code)
		}
	}
	// Escape closes the menu and gives the focus back to its button.
	r.click(t, `.menu > button`)
	r.waitJS(t, `document.querySelector('.menu-pop')`)
	r.run(t, chromedp.KeyEvent(kb.Escape))
	r.waitJS(t, `!document.querySelector('.menu-pop') && document.activeElement === document.querySelector('.menu > button')`)
	// Delete asks, moves to the trash, and undo brings it back.
	r.click(t, `.menu > button`)
	r.click(t, `.menu-pop .danger`)
	r.click(t, `.dialog.confirm .primary`)
	r.waitJS(t, `location.pathname === '/' && document.querySelector('.toast .btn-link:not(.x)')`)
	if _, err := os.Stat(r.sessionFileMaybe(id)); err == nil {
		t.Error("file still in place after delete")
	}
	r.click(t, `.toast .btn-link:not(.x)`)
	r.waitJS(t, fmt.Sprintf(`location.pathname === '/s/%s' && document.querySelector('.row')`, id))
	if _, err := os.Stat(r.sessionFileMaybe(id)); err != nil {
		t.Error("file not back after undo")
	}
}

func (r *rig) sessionFileMaybe(id string) string {
	m, _ := filepath.Glob(filepath.Join(r.dir, "sessions", "*", "*"+id+"*.jsonl"))
	if len(m) == 0 {
		return "/nonexistent"
	}
	return m[0]
}

// testLiveAppend has another process append to the open session, a
// session of its own that is not the newest: the entry shows without a
// reload and the session moves to the top of the sidebar.
func testLiveAppend(t *testing.T, r *rig) {
	id := writeSession(t, r.dir, "/tmp/live", []map[string]any{{"role": "user", "content": "before the append", "timestamp": 1}})
	r.waitIndexed(t, id)
	file := r.sessionFile(t, id)
	r.openReady(t, "/s/"+id, `document.querySelector('.row') && document.querySelector('.group .sess')`)
	if first := eval[string](t, r.browser, `document.querySelector('.group .sess').dataset.id`); first == id {
		t.Fatal("the session is already first in the sidebar")
	}
	r.waitHearing(t, "s/"+id)
	now := time.Now().UTC()
	line := fmt.Sprintf(`{"type":"message","id":"11ve0001","parentId":"e0000001","timestamp":%q,"message":{"role":"user","content":"appended from outside","timestamp":%d}}`,
		now.Format("2006-01-02T15:04:05.000Z"), now.UnixMilli())
	t0 := time.Now()
	cmd := exec.Command("sh", "-c", `printf '%s\n' "$1" >> "$2"`, "sh", line, file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("append: %v %s", err, out)
	}
	r.waitJS(t, `document.querySelector('#e-11ve0001')`)
	t.Logf("appended entry shown after %v (BenchmarkLiveAppend measures it)", time.Since(t0))
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.group .sess').dataset.id === %q`, id))
	if n := r.count(t, `.row`); n != 2 {
		t.Errorf("%d rows after the append, want 2", n)
	}
}

func testFilesPanel(t *testing.T, r *rig) {
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(cwd, "README.md"), []byte("# Title\n\nSome *text*.\n"), 0o644)
	png, _ := base64.StdEncoding.DecodeString(onePixel)
	os.WriteFile(filepath.Join(cwd, "dot.png"), png, 0o644)
	id := writeSession(t, r.dir, cwd, []map[string]any{{"role": "user", "content": "hi", "timestamp": 1}})
	r.openSession(t, id, `document.querySelector('.row')`)
	r.click(t, `.sess-actions button[title^=Files]`)
	r.waitJS(t, `[...document.querySelectorAll('.fnode')].some(b => b.textContent === 'main.go')`)
	eval[bool](t, r.browser, `([...document.querySelectorAll('.fnode')].find(b => b.textContent === 'main.go').click(), true)`)
	r.waitJS(t, `document.querySelector('.viewer .src .tok-k')`)
	os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main\n\nfunc changed() {}\n"), 0o644)
	r.waitJS(t, `document.querySelector('.viewer .src').innerText.includes('changed')`)
	eval[bool](t, r.browser, `([...document.querySelectorAll('.fnode')].find(b => b.textContent === 'README.md').click(), true)`)
	r.waitJS(t, `document.querySelector('.viewer .md h1') && document.querySelector('.viewer .md em')`)
	eval[bool](t, r.browser, `([...document.querySelectorAll('.fnode')].find(b => b.textContent === 'dot.png').click(), true)`)
	r.waitJS(t, `document.querySelector('.viewer img.file-img') && document.querySelector('.viewer img.file-img').naturalWidth === 1`)
	r.open(t, "/") // close the file streams before the folder is removed
}

func testUsagePage(t *testing.T, r *rig) {
	r.open(t, "/usage")
	r.click(t, `.usage-period button:last-child`) // all time
	r.waitJS(t, `document.querySelectorAll('.grid tbody tr').length > 0`)
	// The pictures: a bar per day, each saying its numbers; the costliest
	// day's bar is the tallest, and hovering it shows them.
	r.waitJS(t, `document.querySelectorAll('.uchart[data-metric=cost] .ubar .useg').length > 0`)
	if l := eval[string](t, r.browser, `document.querySelector('.uchart[data-metric=cost] .ubar').getAttribute('aria-label')`); !regexp.MustCompile(`: \$|: <\$`).MatchString(l) {
		t.Errorf("bar label %q has no cost", l)
	}
	x := eval[[]float64](t, r.browser, `(() => { const segs = [...document.querySelectorAll('.uchart[data-metric=cost] .ubar')].map((e) => [...e.querySelectorAll('.useg')].reduce((a, s) => a + s.getBoundingClientRect().height, 0)); const top = Math.max(...segs); const i = segs.indexOf(top); const e = document.querySelectorAll('.uchart[data-metric=cost] .ubar')[i]; e.scrollIntoView({ block: 'center' }); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height - 2, i]; })()`)
	r.run(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x[0], x[1]))
	r.waitJS(t, `document.querySelector('.uchart[data-metric=cost] .uchart-tip')?.innerText.includes('responses')`)
	tip := r.text(t, `.uchart[data-metric=cost] .uchart-tip .uchart-tip-total strong`)
	label := eval[string](t, r.browser, fmt.Sprintf(`document.querySelectorAll('.uchart[data-metric=cost] .ubar')[%d].getAttribute('aria-label')`, int(x[2])))
	if !strings.Contains(label, ": "+tip+",") {
		t.Errorf("tip says %q, the bar %q", tip, label)
	}
	// Keyboard: the chart is one tab stop; ← moves to the day before, and
	// its tip shows.
	eval[bool](t, r.browser, `(document.querySelector('.uchart[data-metric=tokens] .ubar[tabindex="0"]').focus(), true)`)
	r.run(t, chromedp.KeyEvent(kb.ArrowLeft))
	r.waitJS(t, `document.activeElement.matches('.uchart[data-metric=tokens] .ubar') && document.activeElement.getAttribute('tabindex') === '0' && !!document.querySelector('.uchart[data-metric=tokens] .uchart-tip')`)
	// By project: the legend names the fixtures' project.
	r.click(t, `.usage-split button:nth-child(2)`)
	r.waitJS(t, `[...document.querySelectorAll('.uchart-legend li')].some((li) => li.innerText.startsWith('proj'))`)
	// The costliest sessions, the most expensive first, each a link.
	r.waitJS(t, `document.querySelectorAll('.usage-sessions li').length > 1`)
	costs := eval[[]string](t, r.browser, `[...document.querySelectorAll('.usage-sessions .usage-sess-cost')].map((e) => e.textContent)`)
	if !sortedDesc(costs) {
		t.Errorf("sessions not costliest first: %q", costs)
	}
	if !eval[bool](t, r.browser, `fetch('/api/usage/sessions').then((r) => r.json()).then((a) => document.querySelector('.usage-sessions a').getAttribute('href') === '/s/' + encodeURIComponent(a.sessions[0].session.id))`) {
		t.Error("the costliest session does not link to its page")
	}
	r.click(t, `.usage-group button:nth-child(2)`)
	r.waitJS(t, `[...document.querySelectorAll('.grid td.key')].some(td => td.textContent.includes('claude-sonnet-4-5'))`)
	r.click(t, `.usage-group button:nth-child(3)`)
	r.waitJS(t, `document.querySelector('.grid th.key-col')?.textContent.startsWith('project') && [...document.querySelectorAll('.grid td.key')].some(td => td.title === '/home/user/proj' && td.innerText.startsWith('proj'))`)
	// All time longer than 90 days (an answer of March 2, 2026 added to
	// the server's): a bar per week, the oldest week's included, said so.
	eval[bool](t, r.browser, `(() => { const f = window.fetch; window.fetch = async (...a) => {
		const res = await f(...a);
		if (!String(a[0]).includes('split=')) return res;
		const j = await res.json();
		j.rows.unshift({ key: '2026-03-02', group: 'old', input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 1, messages: 1 });
		return new Response(JSON.stringify(j), { status: res.status, headers: { 'content-type': 'application/json' } });
	}; return true; })()`)
	r.click(t, `.usage-period button:first-child`)
	r.click(t, `.usage-period button:last-child`)
	// (The fixtures' own answers go back to November 2025.)
	r.waitJS(t, `(() => { const bars = [...document.querySelectorAll('.uchart[data-metric=cost] .ubar')];
		const head = document.querySelector('.uchart[data-metric=cost] .uchart-head strong');
		return bars.length > 0 && bars.length <= 90 && head?.textContent === 'Cost per week'
			&& bars.every((b) => new Date(b.dataset.day + 'T00:00:00Z').getUTCDay() === 1)
			&& bars.some((b) => b.dataset.day === '2026-03-02')
			&& document.querySelector('.uchart-unit')?.textContent.startsWith('One bar is a week, Monday to Sunday'); })()`)
}

func testNarrowAndDark(t *testing.T, r *rig) {
	r.run(t, chromedp.EmulateViewport(375, 740))
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	if w := eval[int](t, r.browser, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("page is %d px wide at 375", w)
	}
	if v := eval[bool](t, r.browser, `document.querySelector('.sidebar').getBoundingClientRect().right <= 0`); !v {
		t.Error("sidebar visible on a phone before asked")
	}
	r.click(t, `.sess-head .only-mobile`)
	r.waitJS(t, `document.querySelector('.sidebar.open') && document.querySelector('.sidebar').getBoundingClientRect().left >= 0`)
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.sidebar.open')`)
	lightBG := eval[string](t, r.browser, `getComputedStyle(document.body).backgroundColor`)
	r.run(t, emulateDark())
	darkBG := eval[string](t, r.browser, `getComputedStyle(document.body).backgroundColor`)
	if lightBG == darkBG {
		t.Errorf("same background %s in light and dark", lightBG)
	}
	for _, scheme := range []string{"light", "dark"} {
		r.run(t, emulateScheme(scheme))
		if low := eval[string](t, r.browser, lowContrastJS); low != "" {
			t.Errorf("%s: text under 4.5:1 contrast: %s", scheme, low)
		}
	}
}

// lowContrastJS lists the kinds of text on a session page whose contrast
// with their background is under 4.5:1 (WCAG AA for normal text): body
// text, secondary and muted text, links, message heads, the sidebar's
// details, primary buttons.
const lowContrastJS = `(() => {
	const rgb = (c) => { const m = c.match(/[\d.]+/g).map(Number); return c.startsWith('color(') ? [m[0] * 255, m[1] * 255, m[2] * 255, m[3] ?? 1] : [m[0], m[1], m[2], m[3] ?? 1]; };
	const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
	const bg = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c[3] > 0.5) return c; } return [255, 255, 255]; };
	const bad = [];
	for (const sel of ['.md p', '.sess-facts .fact', '.sess-meta span', '.msg-head .ts', '.msg-head .usage', '.who.u', '.who.a', '.group-path', '.btn.primary', '.edit-here', '.conv-start', '.day-sep']) {
		const e = document.querySelector(sel);
		if (!e) { bad.push(sel + ' missing'); continue; }
		const a = lum(rgb(getComputedStyle(e).color)), b = lum(bg(e));
		const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
		if (ratio < 4.5) bad.push(sel + ' ' + ratio.toFixed(2));
	}
	return bad.join(', '); })()`

// testKeyboard: j and k move between messages (in order, into view), t
// and f toggle the panels, / goes to the filter (where j is typed, not a
// move), Ctrl+K opens search and Esc closes what is open.
func testKeyboard(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	focused := func() int {
		return eval[int](t, r.browser, `[...document.querySelectorAll('.row')].findIndex(e => e.classList.contains('focus'))`)
	}
	var got []int
	for _, k := range []string{"j", "j", "k"} {
		r.run(t, chromedp.KeyEvent(k))
		got = append(got, focused())
	}
	if fmt.Sprint(got) != "[0 1 0]" {
		t.Errorf("j j k focused rows %v, want [0 1 0]", got)
	}
	r.run(t, chromedp.KeyEvent("t"))
	r.waitJS(t, `document.querySelector('.tree-panel')`)
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.tree-panel')`)
	r.run(t, chromedp.KeyEvent("f"))
	r.waitJS(t, `document.querySelector('.files-missing')`)
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.files-panel')`)
	r.press(t, '/')
	r.waitJS(t, `document.activeElement === document.querySelector('.side-filter input')`)
	r.press(t, 'j')
	if v := eval[string](t, r.browser, `document.querySelector('.side-filter input').value`); v != "j" || focused() != 0 {
		t.Errorf("j in the filter: value %q, focus moved to %d", v, focused())
	}
	eval[bool](t, r.browser, `(document.activeElement.blur(), true)`)
	r.run(t, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	r.waitJS(t, `document.activeElement === document.querySelector('.dialog.search input')`)
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.dialog.search')`)
	testShortcutsDialog(t, r)
}

// testShortcutsDialog: ? opens the shortcuts, which hold the focus (Tab
// wraps inside), and Escape closes them, the innermost thing only (an
// open panel stays), giving the focus back to the button that had it;
// and so when the focus has left the dialog.
func testShortcutsDialog(t *testing.T, r *rig) {
	r.run(t, chromedp.KeyEvent("t"))
	r.waitJS(t, `document.querySelector('.tree-panel')`)
	eval[bool](t, r.browser, `(document.querySelector('.sess-actions button[title^=Tree]').focus(), true)`)
	r.press(t, '?')
	r.waitJS(t, `document.querySelector('.shortcuts-dialog').contains(document.activeElement)`)
	if got := r.text(t, `.shortcuts-dialog`); !strings.Contains(got, "Ctrl+K") || !strings.Contains(got, "Esc") {
		t.Errorf("shortcuts dialog says %q, want the keys", got)
	}
	for i := 0; i < 3; i++ {
		r.run(t, chromedp.KeyEvent(kb.Tab))
	}
	if !eval[bool](t, r.browser, `document.querySelector('.shortcuts-dialog').contains(document.activeElement)`) {
		t.Error("Tab left the shortcuts dialog")
	}
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.shortcuts-dialog')`)
	if !eval[bool](t, r.browser, `!!document.querySelector('.tree-panel') && document.activeElement ===
		document.querySelector('.sess-actions button[title^=Tree]')`) {
		t.Error("Escape did not close only the dialog and give the focus back to the Tree button")
	}
	// A dialog the focus has left is still the innermost thing open.
	r.press(t, '?')
	r.waitJS(t, `document.querySelector('.shortcuts-dialog').contains(document.activeElement)`)
	eval[bool](t, r.browser, `(document.activeElement.blur(), true)`)
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.shortcuts-dialog') && !!document.querySelector('.tree-panel')`)
	// The tree does what its role promises: ↓ and End move between entries.
	eval[bool](t, r.browser, `(document.querySelector('.tree .tnode-btn').focus(), true)`)
	r.run(t, chromedp.KeyEvent(kb.ArrowDown))
	if !eval[bool](t, r.browser, `document.activeElement === document.querySelectorAll('.tree .tnode-btn')[1]`) {
		t.Error("↓ in the tree did not move to the next entry")
	}
	r.run(t, chromedp.KeyEvent(kb.End))
	if !eval[bool](t, r.browser, `document.activeElement === [...document.querySelectorAll('.tree .tnode-btn')].pop()`) {
		t.Error("End in the tree did not move to the last entry")
	}
	// Escape in the panel closes it, the focus going back to its button.
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.tree-panel') && document.activeElement ===
		document.querySelector('.panel-btn[data-panel=tree]')`)
}
