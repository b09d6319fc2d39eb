package web

import (
	"net/http/httptest"
	"testing"

	"piweb/internal/demo"
	"piweb/internal/server"
)

// TestDemoBanner: the demo says it is one on every page, and once the
// user's own agent dir has sessions it offers to switch to them.
func TestDemoBanner(t *testing.T) {
	requireChromium(t)
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := t.TempDir()
	srv := server.New(server.Options{AgentDir: d.AgentDir, Addr: "127.0.0.1:0", Catalog: indexCatalog(t, d.AgentDir),
		Web: Handler(false, ""), Demo: true, DemoRealDir: real})
	t.Cleanup(func() { srv.Close() })
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	b := newBrowser(t, hs.URL)
	b.open(t, "/")
	b.waitJS(t, `document.querySelector('.demo-banner')?.textContent.includes('Sample sessions in a throwaway folder')`)
	b.open(t, "/s/"+d.Sessions[0])
	b.waitJS(t, `document.querySelector('.demo-banner') && document.querySelector('.row')`)
	writeSession(t, real, "/home/me/work", []map[string]any{{"role": "user", "content": "mine", "timestamp": 1}})
	b.waitJS(t, `document.querySelector('.demo-banner.real')?.textContent.includes('Your own pi sessions are here now (1')`)
	b.noConsoleErrors(t)
}
