package server

import (
	"runtime"
	"testing"
	"time"

	"piweb/internal/app"
	"piweb/internal/testkit"
)

// TestCloseEndsGoroutines: parts built without a catalog open one, and
// closing the server and then the parts ends every goroutine they
// started, the catalog's watcher included.
func TestCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	parts := app.New(app.Config{AgentDir: t.TempDir()})
	srv := New(Options{Addr: "127.0.0.1:1"}, parts)
	if srv.cat.State().Kind != "sqlite" {
		t.Fatal("no index catalog")
	}
	srv.Close()
	parts.Close()
	testkit.Eventually(t, func() bool { return runtime.NumGoroutine() <= before }, 5*time.Second,
		"the goroutine count before New")
}
