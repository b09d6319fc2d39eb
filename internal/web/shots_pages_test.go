package web

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/fakellm"
)

// TestShotsPages photographs the usage page (bars with a bar's tip, the
// costliest sessions) over the fixtures, and the settings page (its
// sections, a project's overrides, a search) on real pi, at 1280 and 390
// px, light and dark, into /tmp/piweb-shots:
//
//	PIWEB_SHOTS=1 go test ./internal/web -run TestShotsPages -count=1
func TestShotsPages(t *testing.T) {
	needShots(t)
	t.Run("usage", func(t *testing.T) {
		r := newRig(t)
		r.open(t, "/usage")
		r.click(t, `.usage-period button:last-child`)
		r.waitJS(t, `document.querySelectorAll('.uchart[data-metric=cost] .useg').length > 0 && document.querySelectorAll('.usage-sessions li').length > 0`)
		shootAll(t, r.browser, "usage-bars")
		eval[bool](t, r.browser, `(document.querySelector('.uchart[data-metric=cost] .ubar[tabindex="0"]').focus(), true)`)
		r.waitJS(t, `!!document.querySelector('.uchart-tip')`)
		r.screenshot(t, "usage-tip-1280-light")
		r.click(t, `.usage-split button:nth-child(2)`)
		r.waitJS(t, `[...document.querySelectorAll('.uchart-legend li')].length > 0`)
		eval[bool](t, r.browser, `(document.querySelector('.usage-sessions').scrollIntoView(), true)`)
		shootAll(t, r.browser, "usage-sessions")
	})
	t.Run("settings", func(t *testing.T) {
		r := newPi16Rig(t)
		r.llm.Enqueue(fakellm.Text("OK"))
		r.startSession(t, "a project to choose")
		r.waitText(t, "OK")
		r.openReady(t, "/settings", `!!document.getElementById('set-steeringMode') && !!document.querySelector('.model-enabled')`)
		shootAll(t, r.browser, "settings-top")
		r.waitJS(t, `!!document.querySelector('.set-project-select option[value="`+r.cwd+`"]')`)
		setValue(t, r, ".set-project-select", r.cwd, "change")
		r.waitJS(t, `!!document.querySelector('.set-form.with-project') && !!document.querySelector('.set-res')`)
		shootSection(t, r, "agent")
		shootSection(t, r, "resources")
		setValue(t, r, ".set-search", "retry", "input")
		r.waitJS(t, `!document.querySelector('.set-providers') && !!document.getElementById('set-retry.enabled')`)
		shootAll(t, r.browser, "settings-search")
	})
}

// shootSection photographs a settings section, chosen in the page's own
// navigation, in every variant.
func shootSection(t *testing.T, r *chatRig, id string) {
	for _, v := range shotVariants {
		r.run(t, chromedp.EmulateViewport(v.w, v.h), emulateScheme(v.scheme))
		setValue(t, r, ".set-nav-select", id, "change")
		r.run(t, chromedp.Sleep(350*time.Millisecond))
		r.screenshot(t, fmt.Sprintf("settings-%s-%d-%s", id, v.w, v.scheme))
	}
	r.run(t, chromedp.EmulateViewport(1280, 800), emulateScheme("light"))
}
