package web

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDebugEval opens PIWEB_BASE+PIWEB_PATH and prints PIWEB_JS's value
// and the console; a tool for development.
func TestDebugEval(t *testing.T) {
	if os.Getenv("PIWEB_JS") == "" || os.Getenv("PIWEB_PATH") == "" {
		t.Skip("development tool")
	}
	b := newBrowser(t, os.Getenv("PIWEB_BASE"))
	b.open(t, os.Getenv("PIWEB_PATH"))
	b.run(t, chromedp.Sleep(2e9))
	t.Logf("value: %v", eval[any](t, b, os.Getenv("PIWEB_JS")))
	b.mu.Lock()
	for _, e := range b.errors {
		t.Log("console:", e)
	}
	b.mu.Unlock()
}
