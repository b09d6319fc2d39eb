package pisession

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// readSession is ReadFile of path; an error stops the test.
func readSession(tb testing.TB, path string) *Session {
	tb.Helper()
	s, err := ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// sharedFixtures returns every session file under pitest.FixturesDir (the
// RPC transcripts are JSON lines too, but no sessions).
func sharedFixtures(t testing.TB) []string {
	t.Helper()
	root := pitest.FixturesDir(t)
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "transcripts") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatalf("no fixtures under %s", root)
	}
	return files
}

func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("bad JSON %.200s: %v", b, err)
	}
	return v
}

// TestFixtureContext checks the contexts real pi computed for the shared
// fixture, at the loaded leaf and at the error message.
func TestFixtureContext(t *testing.T) {
	dir := filepath.Join(pitest.FixturesDir(t), "pi-0.73.1")
	s := readSession(t, filepath.Join(dir, "v3-basic-0.73.1.jsonl"))
	for _, name := range []string{"v3-basic-0.73.1.context.json", "v3-basic-0.73.1.context-at-error-entry.json"} {
		raw := testkit.ReadFile(t, filepath.Join(dir, name))
		want := decodeJSON(t, raw).(map[string]any)
		leaf, _ := want["leafId"].(string)
		delete(want, "leafId")
		got, _ := s.Context(leaf).MarshalJSON()
		if diff := cmp.Diff(want, decodeJSON(t, got)); diff != "" {
			t.Errorf("%s: context mismatch (-pi +piweb):\n%s", name, diff)
		}
	}
}

// TestRoundTrip checks that every line of every fixture is written back
// byte for byte when nothing changed.
func TestRoundTrip(t *testing.T) {
	for _, f := range sharedFixtures(t) {
		data := testkit.ReadFile(t, f)
		s := parseRecords(data)
		for _, p := range s.Problems {
			t.Logf("%s: %v", f, p) // s09 has two writers' headers: real pi output
		}
		if got := s.Encode(); !bytes.Equal(got, data) {
			t.Errorf("%s: re-encoded content differs from the file", f)
		}
	}
}

// TestListFixtures compares the listing with pi's list() of the same folder.
// pi ran on another machine, so paths are compared by base name.
func TestListFixtures(t *testing.T) {
	dir := filepath.Join(pitest.FixturesDir(t), "pi-0.73.1")
	raw := testkit.ReadFile(t, filepath.Join(dir, "list-0.73.1.json"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	got, _ := json.Marshal(ListFiles(files))
	byName := func(v any) map[string]any {
		out := map[string]any{}
		for _, x := range v.([]any) {
			m := x.(map[string]any)
			delete(m, "allMessagesText")
			out[filepath.Base(m["path"].(string))] = m
			delete(m, "path")
		}
		return out
	}
	if diff := cmp.Diff(byName(decodeJSON(t, raw)), byName(decodeJSON(t, got))); diff != "" {
		t.Errorf("listing mismatch (-pi +piweb):\n%s", diff)
	}
}
