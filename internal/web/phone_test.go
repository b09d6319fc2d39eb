package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// overflowJS lists what sticks out of the window at the right, or out of
// a scrolling box (the conversation clips what is too wide, so a page can
// be 375 px wide and still lose text): elements reaching past the right
// edge of the window or of their nearest clipping ancestor that is not
// itself meant to scroll or cut sideways.
const overflowJS = `(() => {
	const bad = [];
	if (document.scrollingElement.scrollWidth > innerWidth) bad.push('page ' + document.scrollingElement.scrollWidth + 'px');
	for (const e of document.querySelectorAll('body *')) {
		const r = e.getBoundingClientRect();
		if (!r.width || getComputedStyle(e).position === 'fixed') continue;
		let edge = innerWidth, clip = null;
		for (let p = e.parentElement; p; p = p.parentElement) {
			const s = getComputedStyle(p);
			if (s.overflowX !== 'visible') { clip = p; break; }
		}
		if (clip) {
			const s = getComputedStyle(clip);
			// Boxes that scroll sideways or cut with an ellipsis do so on purpose.
			if (clip !== document.querySelector('.conv') && (s.overflowX === 'auto' || s.overflowX === 'scroll' || s.textOverflow === 'ellipsis' || getComputedStyle(e).textOverflow === 'ellipsis')) continue;
			if (clip.matches('.tool, .md-table, .code, .group-head, .sess, .hit-snip')) continue;
			edge = Math.min(edge, clip.getBoundingClientRect().right);
		}
		if (r.right > edge + 1) bad.push((e.className || e.tagName) + ' ' + Math.round(r.right) + '>' + Math.round(edge));
	}
	return [...new Set(bad)].slice(0, 8).join('; '); })()`

// fitsPhone fails when something on the page sticks out sideways.
func fitsPhone(t testing.TB, b *browser, what string) {
	t.Helper()
	if bad := eval[string](t, b, overflowJS); bad != "" {
		t.Errorf("%s at %d px: %s", what, eval[int](t, b, `innerWidth`), bad)
	}
}

// testPhonePagesFit: at 375 and 390 px wide (390 is issue 14's phone),
// light and dark, nothing sticks out sideways on any reading screen (the
// document is never wider than the window, and no element is cut off):
// home, a session with tools, thinking, code and a table, the compaction
// expanded, the tree and files panels, search, the menu, the sidebar
// drawer, the usage page and the trash, each with the composer and its pickers where
// a session is open. Buttons are big enough to touch. The composer is
// compact and toasts leave its buttons free.
func testPhonePagesFit(t *testing.T, r *rig) {
	rich := writeRichSession(t, r.dir)
	r.waitIndexed(t, rich)
	screens := []phoneScreen{
		{"home", "/", `.recent li`, ""},
		{"session", "/s/" + rich, `.row .tool`, `document.querySelectorAll('.conv details').forEach((d) => { d.open = true; })`},
		{"compaction", "/s/" + compactID, `.row`, `document.querySelector('.card.compaction .card-head button').click()`},
		{"tree", "/s/" + basicID, `.row`, `document.querySelector('.sess-actions button[title^=Tree]').click()`},
		{"files", "/s/" + rich, `.row`, `document.querySelector('.sess-actions button[title^=Files]').click()`},
		{"search", "/", `.recent li`, `document.dispatchEvent(new KeyboardEvent('keydown', {key: 'k', ctrlKey: true}))`},
		{"menu", "/s/" + basicID, `.row`, `document.querySelector('.menu > button').click()`},
		{"drawer", "/s/" + basicID, `.row`, `document.querySelector('.sess-head .only-mobile').click()`},
		{"usage", "/usage", `.grid tbody tr`, ""},
		{"trash", "/trash", `.backup-rule`, ""},
	}
	for _, v := range []shotVariant{{375, 800, "light"}, {390, 844, "light"}, {390, 844, "dark"}} {
		r.run(t, chromedp.EmulateViewport(v.w, v.h), emulateScheme(v.scheme))
		for _, s := range screens {
			s.fits(t, r, fmt.Sprintf("%s at %d px, %s", s.name, v.w, v.scheme), v.w == 375)
		}
	}
	r.run(t, chromedp.EmulateViewport(375, 800), emulateScheme("light"))
	testPhoneComposer(t, r)
	r.open(t, "/") // close the file streams before the folder is removed
}

// phoneScreen is one screen of testPhonePagesFit: a page, what shows
// when it is ready, and what to open on it.
type phoneScreen struct{ name, path, ready, do string }

// fits opens the screen and checks that nothing sticks out sideways;
// with targets, that buttons are big enough to touch too.
func (s phoneScreen) fits(t *testing.T, r *rig, what string, targets bool) {
	t.Helper()
	eval[bool](t, r.browser, `(localStorage.removeItem('piweb.panel'), true)`) // one screen's panel at a time
	r.openReady(t, s.path, fmt.Sprintf(`document.querySelector(%q)`, s.ready))
	if s.do != "" {
		eval[bool](t, r.browser, `(() => { `+s.do+`; return true; })()`)
	}
	r.run(t, chromedp.Sleep(300e6)) // drawers slide in
	if s.name == "search" {
		r.run(t, chromedp.SendKeys(`.dialog.search input`, "session"))
		r.waitJS(t, `document.querySelector('.hit')`)
	}
	if s.name == "files" {
		r.waitJS(t, `[...document.querySelectorAll('.fnode')].some((b) => b.textContent === 'main.go')`)
		eval[bool](t, r.browser, `([...document.querySelectorAll('.fnode')].find((b) => b.textContent === 'main.go').click(), true)`)
		r.waitJS(t, `document.querySelector('.viewer .src .tok-k')`)
	}
	if w := eval[int](t, r.browser, `document.documentElement.scrollWidth - innerWidth`); w > 0 {
		t.Errorf("%s: the page is %d px wider than the window", what, w)
	}
	fitsPhone(t, r.browser, what)
	if s.name == "session" && !eval[bool](t, r.browser, `[...document.querySelectorAll('.md th')].every((th) => th.clientHeight < 2 * parseFloat(getComputedStyle(th).lineHeight))`) {
		t.Errorf("%s: a table heading is split over lines (the table should scroll instead)", what)
	}
	if !targets {
		return
	}
	if small := eval[string](t, r.browser, smallTargetsJS); small != "" {
		t.Errorf("%s: touch targets under 32 px high: %s", what, small)
	}
}

// testPhoneComposer: on a phone the area under the conversation is small
// while the composer is empty, its text box grows with what is typed and
// shrinks back, and a toast stands clear of its buttons. The browser is
// at 375x800 already.
func testPhoneComposer(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.composer textarea') && document.querySelector('.chat-controls select')`)
	r.run(t, chromedp.Sleep(200e6))
	// The composer and its controls (wrapped to two rows, all visible: no
	// hidden sideways scroll), not counting a status banner above them
	// (this rig has no pi, so "Chatting needs pi" shows).
	parts := `['.composer', '.chat-controls'].reduce((n, s) => n + document.querySelector('.chat-bottom ' + s).getBoundingClientRect().height, 0)`
	if h := eval[float64](t, r.browser, parts); h > 120 {
		t.Errorf("the empty composer and its controls are %.0f px tall of 800, more than 120", h)
	}
	if bad := eval[string](t, r.browser, `[...document.querySelectorAll('.chat-controls > *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1).map((e) => e.className).join(', ')`); bad != "" {
		t.Errorf("composer controls off screen: %s", bad)
	}
	const box = `document.querySelector('.composer textarea')`
	empty := eval[float64](t, r.browser, box+`.offsetHeight`)
	setBox := func(text string) {
		eval[bool](t, r.browser, fmt.Sprintf(`(() => { const ta = %s; ta.value = %q; ta.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, box, text))
	}
	setBox("one\ntwo\nthree\nfour")
	r.waitJS(t, fmt.Sprintf(`%s.offsetHeight > %f * 2 && %s.scrollHeight <= %s.clientHeight + 1`, box, empty, box, box))
	setBox("")
	r.waitJS(t, fmt.Sprintf(`%s.offsetHeight === %f`, box, empty))

	eval[bool](t, r.browser, `(import('/js/state.js').then((m) => m.toast('A notice from an extension, long enough to take two lines on a phone screen')), true)`)
	r.waitJS(t, `document.querySelector('.toast')`)
	if bad := eval[string](t, r.browser, toastCoversJS); bad != "" {
		t.Errorf("the toast covers the composer's %s", bad)
	}
	r.click(t, ".toast .x")
	r.waitJS(t, `!document.querySelector('.toast')`)

	// The placeholder fits the box on one line, and follows its width when
	// the phone turns or the window grows, without the page being opened
	// again (a hint chosen at another width was cut off). This rig runs no
	// pi, whose one hint says so (TestChatPiMissing): the page is told pi
	// was found, so that the composer offers its hints of every width.
	eval[bool](t, r.browser, `(import('/chat/store.js').then((m) => { m.piStatus.value = {...m.piStatus.value, found: true}; }), true)`)
	r.waitJS(t, box+`.placeholder.startsWith('Message pi')`)
	if !eval[bool](t, r.browser, placeholderFitsJS) {
		t.Errorf("the placeholder %q does not fit the box", eval[string](t, r.browser, box+`.placeholder`))
	}
	r.run(t, chromedp.EmulateViewport(1280, 800))
	r.waitJS(t, box+`.placeholder.includes('Enter') && `+placeholderFitsJS)
	r.run(t, chromedp.EmulateViewport(375, 800))
	r.waitJS(t, `!`+box+`.placeholder.includes('Enter') && `+placeholderFitsJS)
}

// placeholderFitsJS says whether the composer's placeholder fits on one
// line of its box.
const placeholderFitsJS = `(() => {
	const ta = document.querySelector('.composer textarea'), s = getComputedStyle(ta);
	const c = document.createElement('canvas').getContext('2d');
	c.font = s.fontStyle + ' ' + s.fontWeight + ' ' + s.fontSize + ' ' + s.fontFamily;
	return c.measureText(ta.placeholder).width + parseFloat(s.paddingLeft) + parseFloat(s.paddingRight) <= ta.clientWidth; })()`

// toastCoversJS lists the composer's controls that a toast overlaps.
const toastCoversJS = `(() => {
	const bad = [];
	for (const toast of document.querySelectorAll('.toast')) {
		const t = toast.getBoundingClientRect();
		for (const e of document.querySelectorAll('.chat-bottom :is(button, select, textarea, input, label.btn)')) {
			const r = e.getBoundingClientRect();
			if (!r.width || r.right <= 0 || r.left >= innerWidth) continue;
			if (r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom) bad.push(e.className || e.tagName);
		}
	}
	return [...new Set(bad)].join(', '); })()`

// smallTargetsJS lists visible buttons, selects and inputs a finger can
// hardly hit on a phone (under 32 px high), except links within text.
const smallTargetsJS = `(() => {
	const bad = [];
	for (const e of document.querySelectorAll('button, select, input:not([type=checkbox]), .sess, .fnode')) {
		const r = e.getBoundingClientRect();
		if (!r.width || !r.height || r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue;
		if (getComputedStyle(e).visibility === 'hidden') continue;
		if (r.height < 32) bad.push((e.className || e.tagName) + ' ' + Math.round(r.height) + 'px');
	}
	return [...new Set(bad)].slice(0, 8).join('; '); })()`

// testConsoleIsWatched proves that the tests' console check sees what it
// must: console.error, an uncaught exception, an unhandled rejection and a
// failed request.
func testConsoleIsWatched(t *testing.T, r *rig) {
	eval[bool](t, r.browser, `(console.error('probe-error'), setTimeout(() => { throw new Error('probe-throw'); }),
		Promise.reject(new Error('probe-reject')), fetch('/api/sessions/no-such-session'), true)`)
	for _, s := range []string{"probe-error", "probe-throw", "probe-reject", "status of 404"} {
		waitFor(t, "the console to report "+s, func() bool { return r.logged(s) })
		r.expectConsole(s)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errors) != 0 {
		t.Errorf("unexpected console output: %s", strings.Join(r.errors, "; "))
	}
}
