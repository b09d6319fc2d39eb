package web

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestKeysShots photographs the shortcuts dialog (? on a session page) at
// 1280 and 390 px, light and dark, in /tmp/shots-keys (PIWEB_SHOTS set;
// else skipped).
func TestKeysShots(t *testing.T) {
	if os.Getenv("PIWEB_SHOTS") == "" {
		t.Skip("PIWEB_SHOTS not set")
	}
	r := newRig(t)
	dir := "/tmp/shots-keys"
	os.MkdirAll(dir, 0o755)
	for _, scheme := range []string{"light", "dark"} {
		for _, w := range []int64{1280, 390} {
			r.reset(t)
			r.run(t, chromedp.EmulateViewport(w, map[int64]int64{1280: 800, 390: 844}[w]))
			eval[bool](t, r.browser, `(localStorage.setItem('piweb.theme', '`+scheme+`'), true)`)
			r.open(t, "/s/"+basicID)
			r.waitJS(t, `document.querySelector('.row')`)
			r.press(t, '?')
			r.waitJS(t, `document.querySelector('.shortcuts-dialog')`)
			png, err := chromedp.Run(r.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "shortcuts-"+scheme+"-"+fmt.Sprint(w)+".png"), png, 0o644)
		}
	}
}
