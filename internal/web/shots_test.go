package web

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestShots takes screenshots of the main screens into /tmp/piweb-shots
// for a human to look at, when PIWEB_SHOTS is set (paths separated by
// spaces, default a standard set); PIWEB_BASE points at a running server.
func TestShots(t *testing.T) {
	needShots(t)
	base := os.Getenv("PIWEB_BASE")
	b := newBrowser(t, base)
	if os.Getenv("PIWEB_DARK") != "" {
		b.run(t, emulateDark())
	}
	paths := strings.Fields(os.Getenv("PIWEB_PATHS"))
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	for i, p := range paths {
		w, h := 1280, 800
		if strings.HasPrefix(p, "m:") {
			p, w, h = p[2:], 375, 740
		}
		b.run(t, chromedp.EmulateViewport(int64(w), int64(h)))
		b.open(t, p)
		b.run(t, chromedp.Sleep(1500e6))
		if js := os.Getenv("PIWEB_JS"); js != "" {
			eval[any](t, b, js)
			b.run(t, chromedp.Sleep(800e6))
			if keys := os.Getenv("PIWEB_KEYS"); keys != "" {
				b.run(t, chromedp.KeyEvent(keys), chromedp.Sleep(800e6))
			}
		}
		b.screenshot(t, "shot"+string(rune('0'+i)))
	}
	b.mu.Lock()
	for _, e := range b.errors {
		t.Log("console:", e)
	}
	b.mu.Unlock()
}
