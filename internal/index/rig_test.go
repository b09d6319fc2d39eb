package index

import (
	"os"
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

// createSession creates the session file name.jsonl of the project "/w"
// in agentDir for the caller to write and close.
func createSession(t testing.TB, agentDir, name string) (*os.File, string) {
	t.Helper()
	p := writeSession(t, agentDir, name, "")
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f, p
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
