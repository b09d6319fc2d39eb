package web

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestServeForDev serves the app (from disk) with the stub API over the
// fixtures for manual looking, when PIWEB_SERVE=addr is set:
//
//	PIWEB_SERVE=127.0.0.1:30199 go test ./internal/web -run TestServeForDev -timeout 0
func TestServeForDev(t *testing.T) {
	addr := os.Getenv("PIWEB_SERVE")
	if addr == "" {
		t.Skip("set PIWEB_SERVE=host:port to serve the app for manual testing")
	}
	dir := agentDir(t)
	writeBig(t, dir, 10000)
	if wd, err := os.Getwd(); err == nil { // a session in this checkout, for the files panel
		writeSession(t, dir, filepath.Dir(filepath.Dir(wd)), []map[string]any{{"role": "user", "content": "Show me the web handler", "timestamp": 1}})
	}
	fmt.Fprintf(os.Stderr, "serving on http://%s (agent dir %s)\n", addr, dir)
	t.Fatal(http.ListenAndServe(addr, appHandler(t, dir, true)))
}
