package web

import (
	"io/fs"
	"regexp"
	"testing"
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
