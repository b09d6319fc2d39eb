package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// openTest opens an index of agentDir in a temporary file.
func openTest(t testing.TB, agentDir string) *Index {
	t.Helper()
	return openWith(t, Options{
		AgentDir: agentDir,
		Path:     filepath.Join(t.TempDir(), "index.db"),
		Getenv:   func(string) string { return "" },
		Log:      testkit.Log(t),
		// Tests compare exact answers, also under -race on a loaded
		// machine: the budget is tested on purpose (budget_test.go).
		SearchBudget: time.Hour,
	})
}

// openWith opens an index with o, closed when tb ends; an error stops the
// test.
func openWith(tb testing.TB, o Options) *Index {
	tb.Helper()
	ix, err := Open(context.Background(), o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// fixtureAgentDir copies every shared fixture into a temporary agent dir,
// one project folder per fixture folder.
func fixtureAgentDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	fixtures := pitest.FixturesDir(t)
	err := filepath.Walk(fixtures, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || filepath.Ext(p) != ".jsonl" {
			return err
		}
		rel, _ := filepath.Rel(fixtures, filepath.Dir(p))
		dst := filepath.Join(dir, "sessions", pisession.EncodeCwd(rel))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, fi.Name()), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying fixtures: %v", err)
	}
	return dir
}

func listJSON(t testing.TB, infos []pisession.Info) string {
	t.Helper()
	b, err := json.Marshal(infos)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkList compares the index's listing with the direct scan.
func checkList(t testing.TB, ix *Index, agentDir string) {
	t.Helper()
	got, err := ix.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := pisession.ListAll(agentDir)
	if want == nil {
		want = []pisession.Info{} // pi's listAll gives [], never null
	}
	if j, err := ix.ListJSON(context.Background()); err != nil || string(j) != listJSON(t, want) {
		t.Fatalf("ListJSON differs from the direct scan (%v):\n%s\n%s", err, j, listJSON(t, want))
	}
	fast, err := MarshalList(got)
	if err != nil || string(fast) != listJSON(t, got) {
		t.Fatalf("MarshalList differs from json.Marshal (%v):\n%s\n%s", err, fast, listJSON(t, got))
	}
	if diff := cmp.Diff(listJSON(t, want), listJSON(t, got)); diff != "" {
		t.Fatalf("index listing differs from direct scan (-scan +index):\n%s", diff)
	}
}

func TestListMatchesScanFixtures(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := fixtureAgentDir(t)
	ix := openTest(t, dir)
	checkList(t, ix, dir)
	checkList(t, ix, dir) // warm
}

func TestListMatchesScanCorpus(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := genCorpus(t, corpus.Options{Files: 60, Bytes: 3 << 20, BigFiles: 1, BigBytes: 512 << 10, Seed: 3})
	ix := openTest(t, dir)
	checkList(t, ix, dir)
	if _, err := ix.Sync(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	checkList(t, ix, dir)
}

// TestParentSessionID: a fork links to its parent by the path in its
// header, else by the id in that path's file name when the path names no
// indexed file; the listing keeps the header's path as it is.
func TestParentSessionID(t *testing.T) {
	dir := t.TempDir()
	const pid = "019a2363-2ea9-75ce-baab-54327df9497a"
	pname := pisession.FileName("2026-01-02T03:04:05.006Z", pid)
	parent := filepath.Join(dir, "sessions", "--a--", pname)
	forks := []struct{ id, parentPath, want string }{
		{"019a2363-2ea9-75ce-baab-000000000001", parent, pid},
		{"019a2363-2ea9-75ce-baab-000000000002", "/moved/--old--/" + pname, pid},
		{"019a2363-2ea9-75ce-baab-000000000003", pname, pid}, // relative, as forkFrom may store it
		{"019a2363-2ea9-75ce-baab-000000000004", "/moved/2026-01-02T03-04-05-006Z_019a2363-2ea9-75ce-baab-0000000000ff.jsonl", ""},
		{"019a2363-2ea9-75ce-baab-000000000005", "/moved/notes.jsonl", ""},
	}
	write := func(path, id, parentPath string) {
		t.Helper()
		h := map[string]any{"type": "session", "version": 3, "id": id, "timestamp": "2026-01-02T03:04:05.006Z", "cwd": "/w"}
		if parentPath != "" {
			h["parentSession"] = parentPath
		}
		b, _ := json.Marshal(h)
		os.MkdirAll(filepath.Dir(path), 0o755)
		line := lineAt("e1", "", "hello "+id, rankNow)
		if err := os.WriteFile(path, append(append(b, '\n'), line...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(parent, pid, "")
	want := map[string]string{pid: ""}
	for _, f := range forks {
		write(filepath.Join(dir, "sessions", "--b--", pisession.FileName("2026-01-02T03:04:05.006Z", f.id)), f.id, f.parentPath)
		want[f.id] = f.want
	}
	ix := openTest(t, dir)
	checkList(t, ix, dir)
	ms, err := ix.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range ms {
		got[m.SessionID] = m.ParentSessionID
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parent ids (-want +got):\n%s", diff)
	}
}
