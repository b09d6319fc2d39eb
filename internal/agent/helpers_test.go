package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// testPi returns the pinned pi: $PIWEB_PI, then tools/pi of this module,
// then pi on PATH. Missing pi fails under CI=true and skips otherwise.
// TODO: use pitest.PiBin once internal/pitest lands.
func testPi(t testing.TB) *Pi {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		missing(t, "node not on PATH")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cands := []string{
		os.Getenv("PIWEB_PI"),
		filepath.Join(root, "tools/pi/node_modules/.bin/pi"),
		filepath.Join(root, "tools/pi/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"),
		"pi",
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if pi, err := Find(context.Background(), c); err == nil {
			return pi
		}
	}
	missing(t, "pi not found (run scripts/setup.sh)")
	return nil
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}
