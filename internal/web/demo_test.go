package web

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"piweb/internal/app"
	"piweb/internal/demo"
	"piweb/internal/server"
)

// TestDemoBanner: the demo says it is one on every page, once the user's
// own agent dir has sessions it offers to switch to them, and the switch
// happens in the page (issue 14.8): piweb serve stops the demo and serves
// the user's own sessions on the same address (LeaveDemo; here the test
// swaps the server as serve does), and the page starts again on them.
func TestDemoBanner(t *testing.T) {
	t.Parallel() // its own server and browser context
	requireChromium(t)
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := t.TempDir()
	var cur atomic.Pointer[server.Server]
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { cur.Load().ServeHTTP(w, r) }))
	t.Cleanup(hs.Close)
	leave := func() {
		mine := newServer(t, server.Options{Addr: "127.0.0.1:0", Web: Handler(false, "")},
			app.Config{AgentDir: real, Catalog: indexCatalog(t, real)})
		cur.Swap(mine).Close()
	}
	srv := newServer(t, server.Options{Addr: "127.0.0.1:0", Web: Handler(false, ""), Demo: true, DemoRealDir: real,
		LeaveDemo: leave}, app.Config{AgentDir: d.AgentDir, Catalog: indexCatalog(t, d.AgentDir)})
	cur.Store(srv)
	b := newBrowser(t, hs.URL)
	b.openReady(t, "/", `document.querySelector('.demo-banner')?.textContent.includes('Sample sessions in a throwaway folder')`)
	b.waitJS(t, `document.querySelector('.demo-banner .demo-leave')?.textContent.includes('Leave the demo')`)
	b.openReady(t, "/s/"+d.Sessions[0], `document.querySelector('.demo-banner') && document.querySelector('.row')`)
	writeSession(t, real, "/home/me/work", []map[string]any{{"role": "user", "content": "mine", "timestamp": 1}})
	b.waitJS(t, `document.querySelector('.demo-banner.real')?.textContent.includes('Your own pi sessions are here now (1')`)
	other := newBrowser(t, hs.URL) // a second tab on a demo session
	other.open(t, "/s/"+d.Sessions[0])
	other.waitJS(t, `document.querySelector('.demo-banner') && document.querySelector('.row')`)
	r := &rig{browser: b}
	b.run(t, chromedp.EmulateViewport(390, 844))
	fitsPhone(t, b, "the demo banner")
	r.click(t, ".demo-banner .demo-leave")
	b.waitJS(t, `document.querySelector('.demo-confirm')?.textContent.includes('samples are deleted')`)
	fitsPhone(t, b, "the demo banner's confirmation")
	r.click(t, ".demo-banner .demo-leave-go")
	// The page reloads itself: wait across the navigation.
	const home = `location.pathname === '/' && !document.querySelector('.demo-banner') && document.querySelectorAll('.sess').length === 1 && document.querySelector('.sess').textContent.includes('mine')`
	b.waitJS(t, home)
	// The other tab follows by itself instead of showing a demo session
	// that is gone.
	other.waitJS(t, home)
	if other.logged("status of 404") {
		other.expectConsole("status of 404") // its stream asked the new server for a demo session's topic
	}
	other.noConsoleErrors(t)
	b.noConsoleErrors(t)
}
