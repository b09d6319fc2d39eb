package index

import (
	"path/filepath"
	"testing"

	"piweb/internal/corpus"
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

// genCorpus generates the sessions of o in a new temporary agent dir and
// returns it.
func genCorpus(t testing.TB, o corpus.Options) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := corpus.Generate(dir, o); err != nil {
		t.Fatal(err)
	}
	return dir
}
