package agent

import (
	"context"
	"path/filepath"
	"testing"

	"piweb/internal/pitest"
)

// testPi returns the pinned pi (tools/pi); missing pi fails under CI=true
// and skips otherwise.
func testPi(t testing.TB) *Pi {
	t.Helper()
	pitest.Node(t)
	pi, err := Find(context.Background(), pitest.PiBinVersion(t, pitest.V073))
	if err != nil {
		t.Fatalf("pinned pi: %v", err)
	}
	return pi
}

func missing(t testing.TB, why string) {
	t.Helper()
	pitest.Missing(t, "%s", why)
}

func transcriptDir(t testing.TB) string {
	return filepath.Join(pitest.FixturesDir(t), "rpc-0.73.1", "transcripts")
}
