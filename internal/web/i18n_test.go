package web

import (
	"fmt"
	"testing"
)

// testLanguages: the language chosen in Settings (piweb section) draws the
// page in it: the sidebar, the header, the composer and <html lang>, and
// the next page loaded keeps it (this browser's choice, in localStorage as
// the theme's); choosing the browser's language again draws it in
// English, as the test browser asks. The message catalogs themselves are
// checked by jstest/i18n.test.mjs.
func testLanguages(t *testing.T, b *browser, session string) {
	shots := shooting()
	if shots {
		shootLanguage(t, b, session, "lang-en")
	}
	chooseLanguage(t, b, "zh-Hans")
	b.openReady(t, session, `document.documentElement.lang === 'zh-Hans' && !!document.querySelector('.row') && !!document.querySelector('.composer textarea')`)
	got := eval[string](t, b, `[document.querySelector('.side-filter input').placeholder,
		document.querySelector('.side-foot a[href="/settings"]').textContent,
		document.querySelector('.sess-menu-btn').getAttribute('aria-label'),
		document.querySelector('.composer textarea').getAttribute('aria-label')].join('|')`)
	if want := "筛选会话|设置|操作|消息"; got != want {
		t.Errorf("sidebar filter, Settings link, Actions, composer in Simplified Chinese = %q, want %q", got, want)
	}
	if shots {
		shootLanguage(t, b, session, "lang-zh-Hans")
		chooseLanguage(t, b, "es") // the longest words, for what overflows
		shootLanguage(t, b, session, "lang-es")
		chooseLanguage(t, b, "zh-Hans")
	}
	chooseLanguage(t, b, "")
	b.waitJS(t, `document.querySelector('.side-foot a[href="/settings"]')?.textContent === 'Settings'`)
	if lang := eval[string](t, b, `document.documentElement.lang`); lang != "en" {
		t.Errorf("<html lang> = %q back in the browser's language, want en", lang)
	}
}

// chooseLanguage picks a language ("" for the browser's) in Settings, which
// reloads the page in it.
func chooseLanguage(t *testing.T, b *browser, code string) {
	t.Helper()
	b.openReady(t, "/settings", `!!document.querySelector('.set-language')`)
	eval[bool](t, b, fmt.Sprintf(`(() => { const s = document.querySelector('.set-language');
		s.value = %q; s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`, code))
	want := code
	if want == "" {
		want = "en"
	}
	b.waitJS(t, fmt.Sprintf(`document.documentElement.lang === %q && !!document.querySelector('.set-language')`, want))
}

// shootLanguage takes the session page and Settings' piweb section (the
// search box narrowed to it) in the language shown, at both widths, light
// and dark.
func shootLanguage(t *testing.T, b *browser, session, name string) {
	b.openReady(t, session, `!!document.querySelector('.row') && !!document.querySelector('.composer textarea')`)
	shootAll(t, b, name+"-session")
	b.openReady(t, "/settings", `!!document.querySelector('.set-language')`)
	eval[bool](t, b, `(() => { const s = document.querySelector('.set-search'); s.value = 'piweb';
		s.dispatchEvent(new Event('input', { bubbles: true })); return true; })()`)
	b.waitJS(t, `!document.querySelector('.set-agent') && !!document.querySelector('.set-language')`)
	shootAll(t, b, name+"-settings")
}
