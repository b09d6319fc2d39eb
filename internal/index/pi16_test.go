package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestPi16List checks the index's listing (List, ListJSON with and
// without its snapshot) against the direct scan and against pi 1.6.0's
// listAll() of the same files (recorded on Node 22.19): BOM files left
// out, falsy lines skipped, lone-CR lines, ties by mtime and name.
func TestPi16List(t *testing.T) {
	agent := pitest.ListDir(t, filepath.Join("..", "..", "pisession", "testdata", "pi-1.6.0", "list"))
	ix := openTest(t, agent)
	checkList(t, ix, agent)
	checkList(t, ix, agent) // warm, from the snapshot
	got, err := ix.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		rel, _ := filepath.Rel(filepath.Join(agent, "sessions"), got[i].Path)
		got[i].Path = filepath.ToSlash(rel)
	}
	want := testkit.ReadFile(t, filepath.Join("..", "..", "pisession", "testdata", "pi-1.6.0", "list", "listAll.json"))
	if diff, err := pitest.DiffJSON(want, []byte(listJSON(t, got))); err != nil || diff != "" {
		t.Errorf("index listing (-pi 1.6.0 +index):\n%s%v", diff, err)
	}
	_ = pisession.ListAll
}

// TestUsageForkFamily counts each answer once across real pi 1.6.0's fork
// and clone of a session (issue 14.9): the fork and the clone copy the
// original's answers with their ids and timestamps; the usage page counts
// them once, and counts the copies again once their parent is gone.
func TestUsageForkFamily(t *testing.T) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", "--main--")
	os.MkdirAll(dir, 0o755)
	files, _ := filepath.Glob(filepath.Join("..", "..", "pisession", "testdata", "pi-1.6.0", "main", "*.jsonl"))
	if len(files) != 3 {
		t.Fatalf("want the original, its fork and the fork's clone, have %d files", len(files))
	}
	seen := map[string]bool{}
	var once, naive float64
	for _, f := range files { // the original's name sorts first
		data := testkit.ReadFile(t, f)
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644)
		for _, e := range pisession.Parse(data).Entries {
			c, ok := pisession.ChargeOf(e)
			if !ok {
				continue
			}
			naive += c.Usage.Input
			if !seen[e.ID+" "+e.Timestamp] {
				seen[e.ID+" "+e.Timestamp] = true
				once += c.Usage.Input
			}
		}
	}
	if naive == once {
		t.Fatal("the fork copies no answers; the test needs them")
	}
	total := func(ix *Index) float64 {
		rows, err := ix.Usage(context.Background(), UsageQuery{By: "model"})
		if err != nil {
			t.Fatal(err)
		}
		var in float64
		for _, r := range rows {
			in += r.Input
		}
		return in
	}
	ix := openTest(t, agent)
	syncAll(t, ix)
	if got := total(ix); got != once {
		t.Errorf("usage input = %v, want %v (each answer once; %v counts copies)", got, once, naive)
	}
	// Without the original, the fork's copies are the only record.
	os.Remove(filepath.Join(dir, filepath.Base(files[0])))
	syncAll(t, ix)
	var want float64
	for _, f := range files[1:] {
		data, _ := os.ReadFile(f)
		s := pisession.Parse(data)
		for _, e := range s.Entries {
			if c, ok := pisession.ChargeOf(e); ok && (f == files[1] || e.Timestamp >= "2026-12-03T14:15:16.598Z") {
				want += c.Usage.Input
			}
		}
	}
	if got := total(ix); got != want {
		t.Errorf("without the original: usage input = %v, want %v", got, want)
	}
}

// TestSearchSkipsSystemMessages indexes files pi 1.6.0 wrote, whose system
// messages hold the whole system prompt: its words are not found (with or
// without tool output), the conversation's and the compaction summary's
// are, and no title comes from a system message (issue 12.6).
func TestSearchSkipsSystemMessages(t *testing.T) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", "--main--")
	os.MkdirAll(dir, 0o755)
	for _, name := range []string{"compact.jsonl", "reopen-new.jsonl"} {
		data := testkit.ReadFile(t, filepath.Join("..", "..", "pisession", "testdata", "pi-1.6.0", name))
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	for _, tools := range []bool{false, true} {
		ix, err := Open(context.Background(), Options{AgentDir: agent, Path: filepath.Join(t.TempDir(), "index.db"),
			Getenv: func(string) string { return "" }, Log: testkit.Log(t), Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		syncAll(t, ix)
		for q, want := range map[string]bool{"harness": false, "echo": true, "Goal": true} {
			hits := searchOK(t, ix, Query{Text: q})
			if (len(hits) > 0) != want {
				t.Errorf("tools %v: search %q: %d hits, want hits: %v", tools, q, len(hits), want)
			}
		}
		infos, _ := ix.List(context.Background())
		for _, in := range infos {
			if strings.Contains(in.FirstMessage, "coding assistant") {
				t.Errorf("%s: title from the system prompt: %q", in.Path, in.FirstMessage)
			}
		}
		ix.Close()
	}
}
