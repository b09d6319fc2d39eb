package web

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// fastSharePoll makes a share page's script ask for its version at once
// rather than every 4 s (the app's own timers are left alone, and so are
// the page's others: chromedp's wait times itself out with setTimeout,
// and at 50 ms a wait for the revoked page failed unless it was emptied
// already).
const fastSharePoll = `if (location.pathname.startsWith('/share/')) {
  const st = window.setTimeout;
  window.setTimeout = (f, ms, ...a) => st(f, ms === 4000 ? 50 : ms, ...a);
}`

// TestShareLink: a session's Actions menu makes a read-only link to the
// branch shown (the dialog says it opens on this machine only, piweb being
// on loopback); Settings lists it; a reader with the link sees the
// export's page, and when the owner revokes it in Settings the reader's
// open page empties itself; Settings' search finds the list. With PIWEB_SHOTS set it photographs the
// dialog and the list at 1280 and 390 px, light and dark.
func TestShareLink(t *testing.T) {
	t.Parallel() // its own server and browser contexts
	_, b := demoApp(t)
	shots := shooting()
	b.open(t, "/")
	click(t, b, `.recent li a`)
	click(t, b, `.sess-head .menu > button`)
	click(t, b, `.menu-pop .act-share`)
	b.waitJS(t, `document.querySelector('.share-dialog input[value=session]').checked`)
	click(t, b, `.share-dialog input[value=branch]`)
	if shots {
		shootAll(t, b, "share-dialog")
	}
	click(t, b, `.share-create`)
	b.waitJS(t, `/\/share\/[A-Za-z0-9_-]{43}$/.test(document.querySelector('.share-link')?.value || '') && document.querySelector('.share-loopback')`)
	if shots {
		shootAll(t, b, "share-made")
	}
	link := eval[string](t, b, `document.querySelector('.share-link').value`)
	click(t, b, `.share-dialog .dialog-actions .btn`)
	b.waitJS(t, `!document.querySelector('.share-dialog')`)

	reader := newBrowser(t, b.base)
	reader.run(t, addScript(fastSharePoll), chromedp.Navigate(link))
	reader.waitJS(t, `document.querySelector('main .msg') && document.documentElement.dataset.version && !document.querySelector('.gone')`)
	reader.noConsoleErrors(t) // its CSP lets its script run (then its last question is a 404)
	b.noConsoleErrors(t)      // before Settings, which asks a pi this test has not for its sign-ins

	b.openReady(t, "/settings", `document.querySelectorAll('.share-row').length === 1 && document.querySelector('.share-row').textContent.includes('one branch')`)
	// The search box finds the list (and only it) by its name.
	eval[bool](t, b, `(() => { const e = document.querySelector('.set-search'); e.value = 'share'; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
	b.waitJS(t, `document.querySelector('.share-row') && !document.querySelector('.set-names')`)
	if shots {
		shootAll(t, b, "share-settings")
	}
	click(t, b, `.share-revoke`)
	click(t, b, `.dialog.confirm .primary`)
	b.waitJS(t, `document.querySelector('.share-none')`)
	reader.waitJS(t, `document.querySelector('.gone') && !document.querySelector('main')`)
}
