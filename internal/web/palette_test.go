package web

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// testPalette: Ctrl+Shift+P opens the command palette of the page's and
// session's actions, filtered as the user types, each with its shortcut;
// Enter runs the first (a panel opens, the rename field shows). On a phone
// a header button opens it and the header stays one row.
func testPalette(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.chat-controls .model-select')`)
	const open = `(document.dispatchEvent(new KeyboardEvent('keydown', {key: 'P', ctrlKey: true, shiftKey: true, bubbles: true})), true)`
	for _, c := range []struct{ typed, first, keys, after string }{
		{"pan tre", "Tree", "T", `document.querySelector('.side-panel .tree')`},
		{"renam", "Rename…", "/name", `document.querySelector('.sess-head .rename input')`},
	} {
		eval[bool](t, r.browser, open)
		r.waitJS(t, `document.activeElement === document.querySelector('.palette input')`)
		r.run(t, chromedp.SendKeys(`.palette input`, c.typed))
		got := eval[[]string](t, r.browser, `(() => { const s = document.querySelector('.palette .hit.sel');
			return s ? [s.querySelector('.cmd-label').textContent, s.querySelector('.cmd-keys')?.textContent || ''] : []; })()`)
		if len(got) != 2 || got[0] != c.first || got[1] != c.keys {
			t.Errorf("%q: first command %q, want %q with %q", c.typed, got, c.first, c.keys)
		}
		if c.keys == "T" {
			r.screenshot(t, "palette-1280-light")
		}
		// Enter as a keydown alone: chromedp's key event sends the "\r" char
		// even when the keydown is prevented, as a browser does not, and it
		// would submit the rename field at once.
		eval[bool](t, r.browser, `(document.querySelector('.palette input').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})), true)`)
		r.waitJS(t, `!document.querySelector('.palette') && `+c.after)
	}
	r.run(t, chromedp.KeyEvent(kb.Escape))
	eval[bool](t, r.browser, `(localStorage.removeItem('piweb.panel'), true)`)
	testMenusAreThePalettes(t, r)
	// Off a session page the page's actions are there: a new session.
	r.openReady(t, "/", `document.querySelector('.home .recent li')`)
	eval[bool](t, r.browser, open)
	r.waitJS(t, `document.activeElement === document.querySelector('.palette input')`)
	r.run(t, chromedp.SendKeys(`.palette input`, "new sess"))
	eval[bool](t, r.browser, `(document.querySelector('.palette input').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})), true)`)
	r.waitJS(t, `!document.querySelector('.palette') && document.querySelector('.new-session-dialog')`)
	r.click(t, `.new-session-dialog .dialog-actions .btn:not(.primary)`)
	r.waitJS(t, `!document.querySelector('.new-session-dialog')`)

	r.run(t, chromedp.EmulateViewport(390, 844))
	defer r.run(t, chromedp.EmulateViewport(1280, 800))
	r.openReady(t, "/s/"+basicID, `document.querySelector('.phone-palette')?.offsetParent`)
	if !eval[bool](t, r.browser, `document.querySelector('.sess-head').getBoundingClientRect().height <= 56`) {
		t.Error("phone header wraps with the palette button")
	}
	r.run(t, emulateDark())
	defer r.run(t, emulateScheme("light"))
	r.click(t, `.phone-palette`)
	r.waitJS(t, `document.querySelectorAll('.palette .hit.cmd').length > 10`)
	r.screenshot(t, "palette-390-dark")
	// On a phone the palette opens the shortcuts, which list the phone's
	// buttons, the keys folded away for a keyboard.
	r.run(t, chromedp.SendKeys(`.palette input`, "shortcuts"))
	eval[bool](t, r.browser, `(document.querySelector('.palette input').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})), true)`)
	r.waitJS(t, `!document.querySelector('.palette') && document.querySelector('.shortcuts-dialog')`)
	got := eval[string](t, r.browser, `(() => { const d = document.querySelector('.shortcuts-dialog');
		const seen = [...d.querySelectorAll('kbd')].filter((k) => k.checkVisibility()).map((k) => k.textContent);
		return [d.querySelector('h2').textContent, seen.includes('⌘'), seen.includes('Ctrl+K'), !!d.querySelector('details.keys-more:not([open])')].join(); })()`)
	if want := "Buttons and shortcuts,true,false,true"; got != want {
		t.Errorf("phone shortcuts (title, ⌘ listed, Ctrl+K shown, keys folded) = %s, want %s", got, want)
	}
	if shooting() {
		shootAll(t, r.browser, "shortcuts-phone")
	}
	r.run(t, chromedp.KeyEvent(kb.Escape))
	r.waitJS(t, `!document.querySelector('.shortcuts-dialog')`)
}

// testMenusAreThePalettes: the Actions menu and the composer's More menu
// are drawn from the palette's action list: each of their items is a
// command of the palette with the same label and shortcut.
func testMenusAreThePalettes(t *testing.T, r *rig) {
	t.Helper()
	r.click(t, `.sess-menu-btn`)
	r.waitJS(t, `document.querySelector('.menu-pop [role=menuitem]')`)
	const items = `[...document.querySelectorAll(%s)].filter((e) => e.offsetParent).map((e) => e.textContent.trim() + '|' + (e.dataset.keys || ''))`
	menu := eval[[]string](t, r.browser, fmt.Sprintf(items, "'.menu-pop [role^=menuitem], .chat-menu [role^=menuitem]'"))
	r.run(t, chromedp.KeyEvent(kb.Escape))
	eval[bool](t, r.browser, `(document.querySelector('.chat-menu').hidden = false, true)`) // shown as its button does
	menu = append(menu, eval[[]string](t, r.browser, fmt.Sprintf(items, "'.chat-menu [role^=menuitem]'"))...)
	eval[bool](t, r.browser, `(document.querySelector('.chat-menu').hidden = true, true)`)
	eval[bool](t, r.browser, `(document.dispatchEvent(new KeyboardEvent('keydown', {key: 'P', ctrlKey: true, shiftKey: true, bubbles: true})), true)`)
	r.waitJS(t, `document.querySelectorAll('.palette .hit.cmd').length > 10`)
	palette := eval[[]string](t, r.browser, `[...document.querySelectorAll('.palette .hit.cmd')].map((e) => e.querySelector('.cmd-label').textContent + '|' + (e.querySelector('.cmd-keys')?.textContent || ''))`)
	r.run(t, chromedp.KeyEvent(kb.Escape))
	r.waitJS(t, `!document.querySelector('.palette')`)
	if len(menu) < 12 {
		t.Fatalf("the menus have %d items: %q", len(menu), menu)
	}
	for _, m := range menu {
		if !slices.Contains(palette, m) {
			t.Errorf("menu item %q (label|shortcut) is not the palette's (%q)", m, palette)
		}
	}
}
