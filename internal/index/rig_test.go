package index

import (
	"os"
	"path/filepath"
	"testing"
)

// writeSession writes content as the session file name.jsonl of the
// project "/w" (sessions/--w--) in agentDir, and returns its path.
func writeSession(t testing.TB, agentDir, name, content string) string {
	t.Helper()
	proj := filepath.Join(agentDir, "sessions", "--w--")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(proj, name+".jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
