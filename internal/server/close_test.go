package server

import (
	"piweb/internal/testkit"
	"runtime"
	"testing"
	"time"
)

// TestCloseEndsGoroutines: a server built without a catalog opens one and
// Close ends every goroutine it started, the catalog's watcher included.
func TestCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	srv := New(Options{AgentDir: t.TempDir(), Addr: "127.0.0.1:1"})
	if srv.cat.State().Kind != "sqlite" {
		t.Fatal("no index catalog")
	}
	srv.Close()
	testkit.Eventually(t, func() bool { return runtime.NumGoroutine() <= before }, 5*time.Second,
		"the goroutine count before New")
}
