package web

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestSettingsSignIn, on real pi 1.6.0: "Sign in" for Anthropic on the
// settings page runs pi's own `pi auth login anthropic --no-browser`; the
// page links pi's sign-in page (a new tab, noopener), the code pasted in its
// field goes to pi, and pi's failure to exchange it (no network here) is
// shown in pi's words, the code not echoed back. A second sign-in is
// found again by a reloaded page and cancelled from it, which kills pi.
func TestSettingsSignIn(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newPi16Rig(t)
	const row = `.set-signin[data-provider=anthropic]`
	r.openReady(t, "/settings", `!!document.querySelector('`+row+` .set-signin-start')`)
	if got := eval[string](t, r.browser, `document.querySelector('.set-signins .set-login').innerText`); !strings.HasSuffix(got, "pi auth login <provider>") {
		t.Errorf("terminal command shown: %q", got)
	}
	r.click(t, row+" .set-signin-start")
	r.waitJS(t, `!!document.querySelector('`+row+` a.set-signin-url') && !!document.querySelector('`+row+` .set-signin-answer')`)
	link := eval[[]string](t, r.browser, `(() => { const a = document.querySelector('`+row+` a.set-signin-url'); return [a.href, a.target, a.rel]; })()`)
	u, err := url.Parse(link[0])
	if err != nil || u.Scheme != "https" || u.Host != "claude.ai" || link[1] != "_blank" || !strings.Contains(link[2], "noopener") {
		t.Fatalf("sign-in link = %q (%v)", link, err)
	}
	if got := eval[string](t, r.browser, `document.querySelector('`+row+` .set-signin-fallback code').innerText`); !strings.HasSuffix(got, "pi auth login anthropic") {
		t.Errorf("terminal command for anthropic: %q", got)
	}
	if shooting() {
		shootSignIn(t, r, row, "signin-running")
	}
	setValue(t, r, row+" .set-signin-answer", "piweb-browser-code#"+u.Query().Get("state"), "input")
	r.click(t, row+" .set-signin-form button[type=submit]")
	r.waitJS(t, `(document.querySelector('`+row+` .set-signin-result.bad')||{innerText:''}).innerText.includes('Failed to log in to Anthropic')`)
	if msg := eval[string](t, r.browser, `document.querySelector('`+row+` .set-signin-result').innerText`); !strings.Contains(msg, "fetch failed") {
		t.Errorf("result shown: %q", msg)
	}
	if eval[bool](t, r.browser, `document.documentElement.outerHTML.includes('piweb-browser-code')`) {
		t.Error("the pasted code is echoed on the page")
	}
	if shooting() {
		eval[bool](t, r.browser, `(document.querySelector('`+row+` details').open = true, true)`)
		shootSignIn(t, r, row, "signin-failed")
	}

	r.click(t, row+" .set-signin-start")
	r.waitJS(t, `!!document.querySelector('`+row+` .set-signin-answer')`)
	if len(pitest.LoginPis(t)) == 0 {
		t.Fatal("no pi auth login runs")
	}
	// A reloaded page finds the running sign-in (one per provider: it could
	// not start another) and can cancel it.
	r.openReady(t, "/settings", `!!document.querySelector('`+row+` .set-signin-cancel') && !!document.querySelector('`+row+` a.set-signin-url')`)
	r.click(t, row+" .set-signin-cancel")
	r.waitJS(t, `(document.querySelector('`+row+` .set-signin-result')||{innerText:''}).innerText.includes('Cancelled')`)
	testkit.Eventually(t, func() error {
		if kids := pitest.LoginPis(t); len(kids) > 0 {
			return fmt.Errorf("pi still runs: %v", kids)
		}
		return nil
	}, 10*time.Second, "pi killed by Cancel")
}

// shootSignIn photographs the sign-in row at 1280 and 390 px, light and
// dark, for looking at (PIWEB_SHOTS).
func shootSignIn(t *testing.T, r *chatRig, row, name string) {
	eachShot(t, r.browser, 820, func(w int64, scheme string) {
		eval[bool](t, r.browser, `(document.querySelector('`+row+`').scrollIntoView({block: 'center'}), true)`)
		r.screenshot(t, shotName(name, w, scheme))
	})
}
