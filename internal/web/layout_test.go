package web

import (
	"io/fs"
	"regexp"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestThemeBeforePaint: theme.js, which sets the theme, is a classic
// script (not a deferred module) loaded before the stylesheets of every
// page that has them, so no page is ever drawn in the other theme first.
func TestThemeBeforePaint(t *testing.T) {
	fsys := staticFS(t)
	for _, name := range []string{"index.html", "offline.html"} {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		first := regexp.MustCompile(`<script src="/theme.js"></script>|<link rel="stylesheet"`).Find(b)
		if string(first) != `<script src="/theme.js"></script>` {
			t.Errorf("%s: the first of theme.js and the stylesheets is %q, want theme.js, as a plain script", name, first)
		}
	}
}

// testThemeSwitch: the sidebar's Theme switch (system, light, dark) turns
// the page at once, is remembered across a reload, and System follows the
// system again.
func testThemeSwitch(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.theme-select')`)
	bg := `getComputedStyle(document.body).backgroundColor`
	light := eval[string](t, r.browser, bg)
	pick := func(v string) {
		eval[bool](t, r.browser, `(() => { const s = document.querySelector('.theme-select'); s.value = '`+v+`';
			s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`)
	}
	pick("dark")
	r.waitJS(t, `document.documentElement.dataset.theme === 'dark' && `+bg+` !== '`+light+`'`)
	r.open(t, "/s/"+basicID)
	got := eval[string](t, r.browser, `document.documentElement.dataset.theme + ',' + localStorage.getItem('piweb.theme')`)
	if got != "dark,dark" {
		t.Errorf("after a reload (theme, stored) = %s, want dark,dark", got)
	}
	r.waitJS(t, `document.querySelector('.theme-select')?.value === 'dark'`)
	pick("system")
	r.waitJS(t, `document.documentElement.dataset.theme === 'light' && localStorage.getItem('piweb.theme') === null`)
	r.run(t, emulateScheme("dark"))
	r.waitJS(t, `document.documentElement.dataset.theme === 'dark'`)
}

// testSidebarCollapse: on a wide screen the sidebar's button collapses it
// (the conversation takes its width), remembered across a reload; the
// header's button, reached by keyboard, brings it back, and the focus
// follows each button. On a phone the remembered collapse changes nothing:
// the sidebar is the drawer the header's button opens.
func testSidebarCollapse(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.side-hide')`)
	r.click(t, `.side-hide`)
	hidden := `getComputedStyle(document.querySelector('.sidebar')).visibility === 'hidden' &&
		document.querySelector('.main').getBoundingClientRect().left < 2 && document.activeElement.matches('.sess-head .side-show')`
	r.waitJS(t, hidden)
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	r.waitJS(t, `getComputedStyle(document.querySelector('.sidebar')).visibility === 'hidden' && localStorage.getItem('piweb.sidebar') === 'hidden'`)
	eval[bool](t, r.browser, `(document.querySelector('.sess-head .side-show').focus(), true)`)
	r.run(t, chromedp.KeyEvent(kb.Enter))
	r.waitJS(t, `getComputedStyle(document.querySelector('.sidebar')).visibility === 'visible' &&
		document.querySelector('.main').getBoundingClientRect().left > 200 && document.activeElement.matches('.side-hide') &&
		!document.querySelector('.sess-head .side-show').offsetParent`)
	r.click(t, `.side-hide`)
	r.waitJS(t, `localStorage.getItem('piweb.sidebar') === 'hidden'`)

	r.run(t, chromedp.EmulateViewport(390, 844))
	defer r.run(t, chromedp.EmulateViewport(1280, 800))
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	r.click(t, `.sess-head .side-show`)
	r.waitJS(t, `document.querySelector('.sidebar.open') && document.querySelector('.sidebar').getBoundingClientRect().left >= 0`)
	r.click(t, `.side-hide`)
	r.waitJS(t, `!document.querySelector('.sidebar.open')`)
}

// testPanelSize: at 1280 px a wide panel opens leaving the conversation
// readable; its edge dragged (the mouse) or moved (the arrow keys) sets its
// width, remembered across a reload; dragged past what leaves the
// conversation readable it lies over the conversation, which keeps its
// width; Full width covers the conversation beside the sidebar, and back.
func testPanelSize(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	r.run(t, chromedp.KeyEvent("f"))
	r.waitJS(t, `document.querySelector('.side-panel .panel-grip')`)
	const state = `(() => { const a = document.querySelector('.app'), p = document.querySelector('.side-panel').getBoundingClientRect();
		return [['column', 'over', 'full'].find((m) => a.classList.contains('panel-' + m)), Math.round(p.left), Math.round(p.width),
			Math.round(document.querySelector('.main').getBoundingClientRect().width)].join(); })()`
	if got, want := eval[string](t, r.browser, state), "column,764,516,480"; got != want {
		t.Errorf("Files opened (mode, left, width, conversation) = %s, want %s", got, want)
	}
	drag := func(to float64) {
		x := eval[float64](t, r.browser, `document.querySelector('.panel-grip').getBoundingClientRect().left + 3`)
		r.run(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x, 300, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x+to)/2, 300, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, to, 300, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, to, 300, chromedp.ButtonLeft))
	}
	drag(880)
	r.waitJS(t, `JSON.parse(localStorage.getItem('piweb.panelWidths') || '{}').files === 400`)
	if got, want := eval[string](t, r.browser, state), "column,880,400,596"; got != want {
		t.Errorf("dragged to 880 (mode, left, width, conversation) = %s, want %s", got, want)
	}
	drag(500)
	r.waitJS(t, `JSON.parse(localStorage.getItem('piweb.panelWidths') || '{}').files === 780`)
	if got, want := eval[string](t, r.browser, state), "over,500,780,996"; got != want {
		t.Errorf("dragged to 500 (mode, left, width, conversation) = %s, want %s", got, want)
	}
	eval[bool](t, r.browser, `(document.querySelector('.panel-grip').focus(), true)`)
	r.run(t, chromedp.KeyEvent(kb.ArrowRight))
	r.waitJS(t, `JSON.parse(localStorage.getItem('piweb.panelWidths')).files === 756`)
	r.click(t, `.panel-full-btn`)
	r.waitJS(t, `document.querySelector('.app.panel-full') && document.querySelector('.panel-full-btn').getAttribute('aria-pressed') === 'true'`)
	if got, want := eval[string](t, r.browser, state), "full,284,996,996"; got != want {
		t.Errorf("full width (mode, left, width, conversation) = %s, want %s", got, want)
	}
	r.click(t, `.panel-full-btn`)
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.side-panel .panel-grip')`)
	if got, want := eval[string](t, r.browser, state), "over,524,756,996"; got != want {
		t.Errorf("after a reload (mode, left, width, conversation) = %s, want %s", got, want)
	}
}

// TestLayoutShots photographs the layout (PIWEB_SHOTS set; else skipped):
// at 1280 px the session page with the sidebar collapsed and the Tree
// open, and with Files over the conversation; at 390 px the Tree and the
// drawer with the theme switch; light and dark, in $PIWEB_SHOTS_DIR.
func TestLayoutShots(t *testing.T) {
	needShots(t)
	r := newRig(t)
	shot := func(name string) { r.screenshot(t, name) }
	for _, scheme := range []string{"light", "dark"} {
		r.reset(t)
		eval[bool](t, r.browser, `(localStorage.setItem('piweb.theme', '`+scheme+`'), localStorage.setItem('piweb.sidebar', 'hidden'),
			localStorage.setItem('piweb.panel', 'tree'), true)`)
		r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.side-panel .tree')`)
		shot("layout-1280-" + scheme + "-collapsed-tree")
		eval[bool](t, r.browser, `(localStorage.removeItem('piweb.sidebar'), localStorage.setItem('piweb.panel', 'files'),
			localStorage.setItem('piweb.panelWidths', '{"files":640}'), true)`)
		r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.app.panel-over .files-panel')`)
		shot("layout-1280-" + scheme + "-files-over")
		r.run(t, chromedp.EmulateViewport(390, 844))
		r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
		r.run(t, chromedp.KeyEvent("t"))
		r.waitJS(t, `document.querySelector('.side-panel .tree')`)
		shot("layout-390-" + scheme + "-tree")
		r.run(t, chromedp.KeyEvent(kb.Escape))
		r.click(t, `.sess-head .side-show`)
		r.waitJS(t, `document.querySelector('.sidebar.open') && document.querySelector('.sidebar').getBoundingClientRect().left >= 0`)
		shot("layout-390-" + scheme + "-drawer")
	}
}
