package web

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestKeysShots photographs the shortcuts dialog (? on a session page) at
// 1280 and 390 px, light and dark, in $PIWEB_SHOTS_DIR (PIWEB_SHOTS set;
// else skipped).
func TestKeysShots(t *testing.T) {
	needShots(t)
	r := newRig(t)
	for _, scheme := range []string{"light", "dark"} {
		for _, w := range []int64{1280, 390} {
			r.reset(t)
			r.run(t, chromedp.EmulateViewport(w, map[int64]int64{1280: 800, 390: 844}[w]))
			eval[bool](t, r.browser, `(localStorage.setItem('piweb.theme', '`+scheme+`'), true)`)
			r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
			r.press(t, '?')
			r.waitJS(t, `document.querySelector('.shortcuts-dialog')`)
			r.screenshot(t, "shortcuts-"+scheme+"-"+fmt.Sprint(w))
		}
	}
}
