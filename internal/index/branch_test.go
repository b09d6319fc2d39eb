package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestTailMatchesParse checks Tail against the full parse for every file
// of generated sessions (branches, compactions, labels, model changes)
// and damaged ones: each it answers has the parse's counts, settings and
// pages; every clean one is answered; after a branch is moved by an
// append, the answer waits for the index and then follows the new branch.
func TestTailMatchesParse(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := genCorpus(t, corpus.Options{Files: 30, Bytes: 6 << 20, Seed: 11})
	bad := filepath.Join(t.TempDir(), "bad")
	if _, err := corpus.Damaged(bad, corpus.DamageOptions{Files: 8, Bytes: 2 << 20, HugeLine: 32 << 10, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(bad, "sessions", "*", "*.jsonl"))
	for i, f := range files {
		os.Rename(f, filepath.Join(dir, "sessions", fmt.Sprintf("bad-%d.jsonl", i)))
	}
	ix := openTest(t, dir)
	syncAll(t, ix)
	clean, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
	for _, p := range clean {
		if !checkTail(t, ix, p) {
			t.Errorf("%s: a clean file not answered from the index", filepath.Base(p))
		}
	}
	for _, p := range files {
		checkTail(t, ix, filepath.Join(dir, "sessions", filepath.Base(p)))
	}
	// A new branch from an early entry: the index must follow it.
	p := clean[0]
	s, _ := pisession.ReadFile(p)
	from := s.Entries[3].ID
	testkit.AppendFile(t, p, fmt.Sprintf(`{"type":"message","id":"nb1","parentId":%q,"timestamp":"2026-03-01T00:00:00.000Z","message":{"role":"user","content":"a new branch","timestamp":1}}`+"\n", from))
	if _, _, ok, _ := ix.Tail(context.Background(), p); ok {
		t.Errorf("answered for a file grown since it was indexed")
	}
	if err := ix.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if !checkTail(t, ix, p) {
		t.Errorf("grown file not answered after its update")
	}
}

// checkTail compares ix.Tail of the file at p with its full parse and
// reports whether the index answered.
func checkTail(t *testing.T, ix *Index, p string) bool {
	t.Helper()
	tail, done, ok, err := ix.Tail(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return false
	}
	defer done()
	s, err := pisession.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := s.ContextAt(s.Leaf())
	n := len(want.Messages)
	type plan struct {
		Total, System   int
		Thinking, Model string
		Leaf            string
	}
	got := plan{tail.Total, tail.System, string(tail.ThinkingLevel), string(tail.Model), tail.LeafID}
	exp := plan{n, pisession.SystemMessages(want.Messages), string(want.ThinkingLevel), string(want.Model), s.Leaf().ID}
	if diff := cmp.Diff(exp, got); diff != "" {
		t.Errorf("%s: (-parse +index):\n%s", filepath.Base(p), diff)
		return true
	}
	for _, b := range [][2]int{{max(0, n-60), n}, {0, n}} {
		msgs, ids, ok := tail.Page(b[0], b[1])
		if !ok {
			t.Errorf("%s: page %v refused", filepath.Base(p), b)
			continue
		}
		if len(msgs) != b[1]-b[0] || len(ids) != len(msgs) {
			t.Errorf("%s: page %v has %d messages, %d ids", filepath.Base(p), b, len(msgs), len(ids))
			continue
		}
		for i := range msgs {
			if string(msgs[i]) != string(want.Messages[b[0]+i]) || ids[i] != want.EntryIDs[b[0]+i] {
				t.Errorf("%s: message %d differs from the parse's", filepath.Base(p), b[0]+i)
				break
			}
		}
	}
	return true
}

// TestTailReadsThePage is the proof that the newest page of a big
// session costs its own lines: the plan and the last 60 messages of a
// 40 MB file read less than a fiftieth of it.
func TestTailReadsThePage(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := genCorpus(t, corpus.Options{Files: 1, Bytes: 40 << 20, BigFiles: 1, BigBytes: 40 << 20, Seed: 5})
	ix := openTest(t, dir)
	syncAll(t, ix)
	files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
	fi, _ := os.Stat(files[0])
	before := ix.BytesRead()
	tail, done, ok, err := ix.Tail(context.Background(), files[0])
	if err != nil || !ok {
		t.Fatalf("not answered: %v", err)
	}
	defer done()
	if _, _, ok := tail.Page(max(0, tail.Total-60), tail.Total); !ok {
		t.Fatal("page refused")
	}
	if read := ix.BytesRead() - before; read > fi.Size()/50 {
		t.Errorf("read %d bytes of %d for the newest page", read, fi.Size())
	}
}
