package index

import (
	"path/filepath"
	"testing"

	"piweb/internal/testkit"
)

// writeSession writes content as the session file name.jsonl of the
// project "/w" (sessions/--w--) in agentDir, and returns its path.
func writeSession(t testing.TB, agentDir, name, content string) string {
	t.Helper()
	p := filepath.Join(agentDir, "sessions", "--w--", name+".jsonl")
	testkit.WriteFile(t, p, content)
	return p
}
