package web

import (
	"io/fs"
	"regexp"
	"testing"

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
	r.open(t, "/s/"+basicID)
	r.waitJS(t, `document.querySelector('.row') && document.querySelector('.theme-select')`)
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
	r.open(t, "/s/"+basicID)
	r.waitJS(t, `document.querySelector('.row') && document.querySelector('.side-hide')`)
	r.click(t, `.side-hide`)
	hidden := `getComputedStyle(document.querySelector('.sidebar')).visibility === 'hidden' &&
		document.querySelector('.main').getBoundingClientRect().left < 2 && document.activeElement.matches('.sess-head .side-show')`
	r.waitJS(t, hidden)
	r.open(t, "/s/"+basicID)
	r.waitJS(t, `document.querySelector('.row')`)
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
	r.open(t, "/s/"+basicID)
	r.waitJS(t, `document.querySelector('.row')`)
	r.click(t, `.sess-head .side-show`)
	r.waitJS(t, `document.querySelector('.sidebar.open') && document.querySelector('.sidebar').getBoundingClientRect().left >= 0`)
	r.click(t, `.side-hide`)
	r.waitJS(t, `!document.querySelector('.sidebar.open')`)
}
