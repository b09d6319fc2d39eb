package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"piweb/internal/testkit"
)

// testOpeningKeepsPlace: opening a compaction's summary or the history it
// hid grows the conversation below what the reader clicked; the view
// stays where it was instead of jumping to the new bottom.
func testOpeningKeepsPlace(t *testing.T, r *rig) {
	r.run(t, chromedp.EmulateViewport(1280, 500))
	r.openReady(t, "/s/"+compactID, `document.querySelector('.card.compaction .card-head button')`)
	r.run(t, chromedp.Sleep(500e6)) // the rest of the window is drawn after the newest messages
	eval[bool](t, r.browser, `(document.querySelector('.card.compaction').scrollIntoView({block: 'start'}), true)`)
	r.run(t, chromedp.Sleep(300e6))
	for _, c := range []struct{ click, wait string }{
		{`.card.compaction .card-summary > summary`, `document.querySelector('.card.compaction .card-summary').open`},
		{`.card.compaction .card-head button`, `document.querySelector('.hidden-history .row')`},
	} {
		const top = `document.querySelector('.card.compaction').getBoundingClientRect().top`
		before := eval[float64](t, r.browser, top)
		r.click(t, c.click)
		r.waitJS(t, c.wait)
		r.run(t, chromedp.Sleep(300e6)) // layout effects and resize observers ran
		if after := eval[float64](t, r.browser, top); after-before > 5 || before-after > 5 {
			t.Errorf("%s moved the view from %.0f to %.0f", c.click, before, after)
		}
	}
	if !eval[bool](t, r.browser, `(() => { const c = document.querySelector('.conv').getBoundingClientRect(), k = document.querySelector('.card.compaction').getBoundingClientRect();
		return k.top < c.bottom && k.bottom > c.top; })()`) {
		t.Error("the compaction card left the view")
	}
}

// testHeaderFollowsFile: the header's size, count and time follow an
// append from outside, as the sidebar does.
func testHeaderFollowsFile(t *testing.T, r *rig) {
	id := writeSession(t, r.dir, "/tmp/facts", []map[string]any{{"role": "user", "content": "first", "timestamp": 1764583200000}})
	r.openSession(t, id, `document.querySelector('.sess-facts .count')?.textContent.startsWith('1 message ·')`)
	size := r.text(t, `.sess-facts .count`)
	testkit.AppendFile(t, r.sessionFile(t, id), fmt.Sprintf(`{"type":"message","id":"f0000002","parentId":"e0000001","timestamp":"2026-12-01T10:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"an answer long enough to change the size shown"}],"api":"x","provider":"p","model":"model-b","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.00012}},"stopReason":"stop","timestamp":%d}}`+"\n", 1764583205000))
	r.waitJS(t, `document.querySelector('.conv').innerText.includes('an answer long enough')`)
	r.waitJS(t, fmt.Sprintf(`(() => { const c = document.querySelector('.sess-facts .count').textContent; return c.startsWith('2 messages ·') && c !== %q; })()`, size))
	r.waitJS(t, `document.querySelector('.sess-facts').textContent.includes('model-b') && document.querySelector('.sess-facts').textContent.includes('$0.00012')`)
}

// testPhoneSearchAndPanel: on a phone search is a button in the header
// (no keyboard hints), and a tree panel remembered on a wide screen does
// not open sessions full-screen on the tree.
func testPhoneSearchAndPanel(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	r.run(t, chromedp.KeyEvent("t"))
	r.waitJS(t, `document.querySelector('.side-panel .tree') && localStorage.getItem('piweb.panel') === 'tree'`)
	r.run(t, chromedp.EmulateViewport(375, 800))
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	if n := r.count(t, `.side-panel`); n != 0 {
		t.Error("a remembered panel covers the session on a phone")
	}
	r.click(t, `.sess-head .phone-search`)
	r.waitJS(t, `document.querySelector('.dialog.search input')`)
	r.run(t, chromedp.SendKeys(`.dialog.search input`, "session"))
	r.waitJS(t, `document.querySelector('.hit')`)
	if eval[bool](t, r.browser, `[...document.querySelectorAll('.dialog kbd, .dialog-foot .keys')].some((e) => e.offsetParent)`) {
		t.Error("search shows keyboard hints on a phone")
	}
	// A tree node opened on a phone shows the conversation.
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.dialog.search')`)
	r.click(t, `.sess-actions button[title^=Tree]`)
	r.waitJS(t, `document.querySelector('.side-panel .tnode-btn')`)
	r.click(t, `.side-panel .tnode-btn`)
	r.waitJS(t, `!document.querySelector('.side-panel') && document.querySelector('.row')`)
}

// testSearchMore: search says how many hits there are and shows more
// than the first 50 on request.
func testSearchMore(t *testing.T, r *rig) {
	var msgs []map[string]any
	for i := range 60 {
		msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("quagga number %d", i), "timestamp": 1764583200000 + i})
	}
	writeSession(t, r.dir, "/tmp/many", msgs)
	waitSearchable(t, r.browser, "quagga", 60)
	r.run(t, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	r.waitJS(t, `document.querySelector('.dialog.search input')`)
	r.run(t, chromedp.SendKeys(`.dialog.search input`, "quagga"))
	// The count is every match's (issue 26 item 2), not "50+".
	r.waitJS(t, `document.querySelector('.hit-count')?.textContent === '60 hits in 1 session' && document.querySelectorAll('.hit').length === 50`)
	r.click(t, `.more-hits button`)
	r.waitJS(t, `document.querySelectorAll('.hit').length === 60 && document.querySelector('.hit-count').textContent === '60 hits in 1 session' && !document.querySelector('.more-hits')`)
}

// testStartingSaysWhat: while a new session starts, the dialog says what
// is happening, not only "Starting…"; then the session's page shows the
// message sent and that pi starts until pi writes the file.
func testStartingSaysWhat(t *testing.T, r *rig) {
	r.openReady(t, "/", `document.querySelector('.new-session')`)
	// The server's answer is held back, as a slow pi start would, then
	// names a session whose file pi has not written a message to yet.
	fresh := writeSession(t, r.dir, "/tmp", nil)
	r.waitIndexed(t, fresh)
	eval[bool](t, r.browser, `(() => { const f = window.fetch; window.fetch = (u, o) => (o && o.method === 'POST' && String(u) === '/api/sessions') ? new Promise((ok) => { window.answerStart = (id) => ok(new Response(JSON.stringify({ id }), { status: 201, headers: { 'Content-Type': 'application/json' } })); }) : f(u, o); return true; })()`)
	r.click(t, `.new-session`)
	r.waitJS(t, `document.querySelector('.new-session-dialog [name=message]')`)
	for _, f := range [][2]string{{"cwd", "/tmp"}, {"message", "hello"}} { // one at a time: each input renders
		eval[bool](t, r.browser, fmt.Sprintf(`(() => { const e = document.querySelector('.new-session-dialog [name=%s]');
			e.value = %q; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, f[0], f[1]))
		r.waitJS(t, fmt.Sprintf(`document.querySelector('.new-session-dialog [name=%s]').value === %q`, f[0], f[1]))
		r.run(t, chromedp.Sleep(100e6))
	}
	r.click(t, `.new-session-dialog button[type=submit]`)
	r.waitJS(t, `document.querySelector('.ns-starting')?.textContent.includes('Starting pi in /tmp')`)
	// The session's page shows the message and that pi starts, never a
	// blank pane.
	eval[bool](t, r.browser, fmt.Sprintf(`(window.answerStart(%q), true)`, fresh))
	r.waitJS(t, `document.querySelector('.conv .starting-msg .bubble')?.textContent.includes('hello') && document.querySelector('.starting-line')?.textContent.includes('Starting pi in /tmp')`)
	if n := r.count(t, `.conv .empty`); n != 0 {
		t.Error("a starting session says it has no messages")
	}
}

// testTotalsFollowAppends: the header's cost of a long session (only its
// last page loaded) follows answers appended from outside by adding their
// usage: the page does not read the whole branch again for each append
// (a session of hundreds of MB followed live would send it every time).
func testTotalsFollowAppends(t *testing.T, r *rig) {
	answer := func(i int) map[string]any {
		return map[string]any{"role": "assistant", "content": []map[string]any{{"type": "text", "text": fmt.Sprintf("answer %d", i)}},
			"api": "x", "provider": "p", "model": "model-t", "stopReason": "stop", "timestamp": 1764583200000 + 2000*i + 1000,
			"usage": map[string]any{"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
				"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.01}}}
	}
	var msgs []map[string]any
	for i := range 50 {
		msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("question %d", i), "timestamp": 1764583200000 + 2000*i}, answer(i))
	}
	id := writeSession(t, r.dir, "/tmp/totals", msgs)
	r.waitIndexed(t, id)
	r.open(t, "/s/"+id)
	const facts = `(document.querySelector('.sess-facts')?.textContent || '')`
	r.waitJS(t, facts+`.includes('$0.500')`)
	eval[bool](t, r.browser, `(() => { const f = window.fetch; window.__ctx = [];
		window.fetch = (u, o) => { if (String(u).includes('/context')) window.__ctx.push(String(u)); return f(u, o); };
		return true; })()`)
	parent := "e0000100"
	for i, want := range []string{"$0.510", "$0.520"} {
		m := answer(50 + i)
		eid := fmt.Sprintf("f%07d", i+1)
		testkit.AppendFile(t, r.sessionFile(t, id), fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-12-01T10:05:0%d.000Z","message":%s}`+"\n", eid, parent, i, mustJSON(m)))
		r.waitJS(t, facts+`.includes('`+want+`')`)
		parent = eid
	}
	urls := eval[[]string](t, r.browser, `window.__ctx`)
	if len(urls) == 0 {
		t.Error("the page read no context for the appended answers")
	}
	for _, u := range urls {
		if !strings.Contains(u, "limit=") {
			t.Errorf("an append made the page read the whole branch: %s", u)
		}
	}
}
