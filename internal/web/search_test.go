package web

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// testSearchNarrows: issue 26 item 2 in the page. The count says how many
// hits in how many sessions (not "50+"), hits are grouped by session with
// each session's matches, "more" says how many are left; a quick chip adds
// a filter to the text, the server's parsed filter shows as a chip whose
// × removes it from the text, and an unknown filter is said while the rest
// is searched.
func testSearchNarrows(t *testing.T, r *rig) {
	var many []map[string]any
	for i := range 60 {
		many = append(many, map[string]any{"role": "user", "content": fmt.Sprintf("zebra number %d", i), "timestamp": 1764583200000 + i})
	}
	a := writeSession(t, r.dir, "/tmp/stripes", many)
	answer := func(text string) map[string]any {
		return map[string]any{"role": "assistant", "content": []map[string]any{{"type": "text", "text": text}},
			"api": "x", "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 1764583300000}
	}
	b := writeSession(t, r.dir, "/tmp/savanna", []map[string]any{
		{"role": "user", "content": "a zebra question", "timestamp": 1764583300000}, answer("zebra answer one"), answer("zebra answer two")})
	waitSearchable(t, r.browser, "zebra", 63)
	r.openReady(t, "/", `document.querySelector('.sess')`)
	r.run(t, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	r.waitJS(t, `document.querySelector('.dialog.search input')`)
	r.run(t, chromedp.SendKeys(`.dialog.search input`, "zebra"))
	r.waitJS(t, `document.querySelector('.hit-count')?.textContent === '63 hits in 2 sessions' && document.querySelectorAll('.hit').length === 50
		&& document.querySelector('.more-hits button').textContent.trim() === 'Show 13 more'`)
	r.click(t, `.more-hits button`)
	group := func(id string) string { return fmt.Sprintf(`document.querySelector('.hit-group[data-session=%q]`, id) }
	r.waitJS(t, `document.querySelectorAll('.hit').length === 63 && !document.querySelector('.more-hits')
		&& document.querySelectorAll('.hit-group').length === 2
		&& `+group(a)+` .group-count').textContent === '60 matches' && `+group(a)+`').querySelectorAll('.hit').length === 60
		&& `+group(b)+` .group-count').textContent === '3 matches'`)
	// A quick chip adds its filter; the parsed filter is a chip.
	r.click(t, `.chip.add[data-token="role:assistant"]`)
	r.waitJS(t, `document.querySelector('.dialog.search input').value === 'zebra role:assistant'
		&& document.querySelector('.chip.on[data-key=role]')?.textContent.startsWith('role: assistant')
		&& document.querySelector('.hit-count')?.textContent === '2 hits in 1 session' && !document.querySelector('.chip.add[data-key=role]')
		&& [...document.querySelectorAll('.hit')].every((h) => h.dataset.session === `+fmt.Sprintf("%q", b)+`)`)
	// Its × takes it out of the text.
	r.click(t, `.chip.on[data-key=role] .chip-x`)
	r.waitJS(t, `document.querySelector('.dialog.search input').value === 'zebra' && !document.querySelector('.chip.on')
		&& document.querySelector('.hit-count')?.textContent === '63 hits in 2 sessions'`)
	// An unknown filter is said, and the rest is searched.
	r.run(t, chromedp.SendKeys(`.dialog.search input`, " colour:red"))
	r.waitJS(t, `document.querySelector('.search-warn')?.textContent.includes('"colour:"')
		&& document.querySelector('.hit-count')?.textContent === '63 hits in 2 sessions'`)
	r.run(t, chromedp.KeyEvent("\x1b"))
	r.waitJS(t, `!document.querySelector('.dialog.search')`)
}
