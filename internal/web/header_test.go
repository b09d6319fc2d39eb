package web

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// testHeaderAndComposer: the session header is one line (title, project,
// model, tokens and cost) with the details on demand, closed by Escape;
// under the text box (attach, send) one slim row of chips for the model
// and thinking level and one "More" menu for compact, clone, models,
// alerts and mute. On a phone the header is one row, the controls one
// line, and the first message starts in the top 150 px.
func testHeaderAndComposer(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.sess-more .spend') && document.querySelector('.chat-controls .model-select')`)
	const visible = `((sel) => { const e = document.querySelector(sel); return !!e && !!e.offsetParent; })`
	got := eval[string](t, r.browser, `(() => {
		const head = document.querySelector('.sess-head').getBoundingClientRect().height;
		const name = document.querySelector('.sess-name').getBoundingClientRect(), brief = document.querySelector('.sess-more').getBoundingClientRect();
		const v = (s) => !!document.querySelector(s)?.offsetParent;
		return [head <= 50, Math.abs((name.top + name.bottom) - (brief.top + brief.bottom)) < 8,
			document.querySelector('.sess-more .project').textContent, v('.sess-facts'),
			v('.chat-controls .model-select'), v('.chat-controls .thinking-select'), v('.chat-controls .chat-more-btn'),
			['.act-compact', '.act-clone', '.act-models', '.alert-select', '.act-mute'].some((s) => v('.chat-controls ' + s)),
			document.querySelector('.chat-controls').getBoundingClientRect().height <= 30].join(); })()`)
	if want := "true,true,proj,false,true,true,true,false,true"; got != want {
		t.Errorf("desktop header and composer (short, one line, project, details shown, model, thinking, more, menu items shown, controls one row) =\n%s, want\n%s", got, want)
	}
	r.click(t, `.sess-more`)
	r.waitJS(t, visible+`('.sess-facts .cwd') && document.querySelector('.sess-more').getAttribute('aria-expanded') === 'true'`)
	eval[bool](t, r.browser, `(document.querySelector('.sess-more').focus(), true)`) // as a real click leaves it
	r.run(t, chromedp.KeyEvent(kb.Escape))
	r.waitJS(t, `!document.querySelector('.sess-facts').offsetParent`)
	r.click(t, `.chat-more-btn`)
	r.waitJS(t, `['.act-compact', '.act-clone', '.act-models', '.alert-select', '.act-mute'].every((s) => document.querySelector('.chat-menu ' + s)?.offsetParent)`)
	eval[bool](t, r.browser, `(document.querySelector('.chat-more-btn').focus(), true)`)
	r.run(t, chromedp.KeyEvent(kb.Escape))
	r.waitJS(t, `!document.querySelector('.chat-menu').offsetParent`)

	r.run(t, chromedp.EmulateViewport(390, 844))
	defer r.run(t, chromedp.EmulateViewport(1280, 800))
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.chat-controls .model-select')`)
	got = eval[string](t, r.browser, `(() => {
		const top = document.querySelector('.conv .row').getBoundingClientRect().top;
		return [document.querySelector('.sess-head').getBoundingClientRect().height <= 56, top < 150,
			document.querySelector('.chat-controls').getBoundingClientRect().height <= 40,
			!!document.querySelector('.sess-actions .panel-btn').offsetParent].join(); })()`)
	if want := "true,true,true,false"; got != want {
		t.Errorf("phone (header one row, first message in the top 150 px, controls one line, panel buttons in the header) = %s, want %s", got, want)
	}
	// A pi 1.x session's system prompt is one slim line: its first message
	// starts in the top 150 px too.
	pi1 := writePi1Session(t, r)
	r.openReady(t, "/s/"+pi1, `document.querySelector('.conv [data-role=user]') && document.querySelector('.system-prompt')`)
	if top := eval[float64](t, r.browser, `(document.querySelector('.conv').scrollTop = 0, document.querySelector('.conv [data-role=user]').getBoundingClientRect().top)`); top > 150 {
		t.Errorf("phone: a pi 1.x session's first message starts %.0f px down, want <= 150", top)
	}
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	// The side panels are in the Actions menu.
	r.click(t, `.sess-menu-btn`)
	r.waitJS(t, `[...document.querySelectorAll('.menu-pop .panel-item')].some((b) => b.textContent === 'Tree' && b.offsetParent)`)
	eval[bool](t, r.browser, `([...document.querySelectorAll('.menu-pop .panel-item')].find((b) => b.textContent === 'Tree').click(), true)`)
	r.waitJS(t, `document.querySelector('.side-panel .tree')`)
	eval[bool](t, r.browser, `(localStorage.removeItem('piweb.panel'), true)`)
}
