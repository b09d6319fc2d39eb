package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/pitest"
)

// testPi returns the pinned pi (tools/pi); missing pi fails under CI=true
// and skips otherwise.
func testPi(t testing.TB) *Pi {
	t.Helper()
	return testPiVersion(t, pitest.Version(os.Getenv("PIWEB_TEST_PI_VERSION")))
}

// testPiVersion returns pinned pi v (pi 1.6.0 when v is ""). Tests whose
// behaviour differs between pi versions (the RPC client, the bridge) run
// under each of pitest.Versions; the rest under the default, or under
// PIWEB_TEST_PI_VERSION (e.g. 0.73.1) for a full run against the older pi.
func testPiVersion(t testing.TB, v pitest.Version) *Pi {
	t.Helper()
	if v == "" {
		v = pitest.V16
	}
	pi, err := Find(context.Background(), pitest.PiBinVersion(t, v))
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
