package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/pitest"
	"piweb/internal/session"
)

// openTest opens an index of agentDir in a temporary file.
func openTest(t testing.TB, agentDir string) *Index {
	t.Helper()
	ix, err := Open(context.Background(), Options{
		AgentDir: agentDir,
		Path:     filepath.Join(t.TempDir(), "index.db"),
		Getenv:   func(string) string { return "" },
		Logf:     t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
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
		dst := filepath.Join(dir, "sessions", session.EncodeCwd(rel))
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

func listJSON(t testing.TB, infos []session.Info) string {
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
	want := session.ListAll(agentDir)
	if want == nil {
		want = []session.Info{} // pi's listAll gives [], never null
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
	dir := fixtureAgentDir(t)
	ix := openTest(t, dir)
	checkList(t, ix, dir)
	checkList(t, ix, dir) // warm
}

func TestListMatchesScanCorpus(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpus.Generate(dir, corpus.Options{Files: 60, Bytes: 3 << 20, BigFiles: 1, BigBytes: 512 << 10, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ix := openTest(t, dir)
	checkList(t, ix, dir)
	if _, err := ix.Sync(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	checkList(t, ix, dir)
}
