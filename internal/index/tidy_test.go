package index

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// tidyQueries are searches whose hits must not change with the merge.
var tidyQueries = []string{`"the function"`, "zq*", "error config"}

// TestTidy checks that a bulk pass leaves its segments marked for a merge
// and searchable, that Tidy merges them in bounded steps into one, giving
// the same hits, and is a no-op after that; an append between two steps
// is indexed at once and survives the rest of the merge.
func TestTidy(t *testing.T) {
	// Not parallel: it sets the tunables every other test's passes read.
	defer func(b, h int64, p int) { bulkBytes, heldMax, mergePages = b, h, p }(bulkBytes, heldMax, mergePages)
	bulkBytes, heldMax, mergePages = 1, 48<<10, 1
	for _, tc := range []struct {
		name   string
		append bool // a live append after the first step
	}{
		{name: "merge alone"},
		{name: "append between steps", append: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := genCorpus(t, corpus.Options{Files: 8, Bytes: 512 << 10, Seed: 5})
			ix := openTest(t, dir)
			syncAll(t, ix)
			if !mergePending(t, ix) {
				t.Fatal("no merge pending after a bulk pass")
			}
			if n := segments(t, ix); n < 2 {
				t.Fatalf("%d segments after a bulk pass: nothing to merge", n)
			}
			before := tidyHits(t, ix)
			steps := 1
			more, err := ix.Tidy(context.Background())
			if err != nil || !more {
				t.Fatalf("first step: more %v, %v", more, err)
			}
			if tc.append {
				p := writeSession(t, dir, "live", hdr+"\n"+line("l1", "", "user", "the function zqabc appended live", 1))
				if err := ix.Update(context.Background(), p); err != nil {
					t.Fatal(err)
				}
				if !mergePending(t, ix) {
					t.Fatal("the append ended the merge")
				}
				before = tidyHits(t, ix)
			}
			for ; more; steps++ {
				if more, err = ix.Tidy(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if steps < 3 {
				t.Errorf("merged in %d steps of %d pages: not bounded", steps, mergePages)
			}
			if mergePending(t, ix) {
				t.Error("merge still pending after the last step")
			}
			if n := segments(t, ix); n > 2 {
				t.Errorf("%d segments after the merge", n)
			}
			if diff := cmp.Diff(before, tidyHits(t, ix)); diff != "" {
				t.Errorf("hits (-before +after the merge):\n%s", diff)
			}
			if more, err := ix.Tidy(context.Background()); more || err != nil {
				t.Errorf("Tidy after the merge: more %v, %v", more, err)
			}
		})
	}
}

// TestTidyLetsWritersIn checks that a writer waiting while a merge
// runs (a live append) comes in after the step under way, not after the
// merge: the writer lock hands itself to its waiters in turn.
func TestTidyLetsWritersIn(t *testing.T) {
	// Not parallel: it sets the tunables every other test's passes read.
	defer func(b, h int64, p int) { bulkBytes, heldMax, mergePages = b, h, p }(bulkBytes, heldMax, mergePages)
	bulkBytes, heldMax, mergePages = 1, 48<<10, 1
	dir := genCorpus(t, corpus.Options{Files: 8, Bytes: 512 << 10, Seed: 5})
	ix := openTest(t, dir)
	syncAll(t, ix)
	p := writeSession(t, dir, "live", hdr+"\n"+line("l1", "", "user", "appended while merging", 1))
	var seen []bool // after each step: whether the append is indexed
	ix.tidied = func() {
		var n int
		ix.db.QueryRow(`SELECT count(*) FROM entries WHERE eid = 'l1'`).Scan(&n)
		seen = append(seen, n > 0)
	}
	ix.wmu.Lock() // a step under way
	tidy := make(chan error, 1)
	go func() { tidy <- ix.TidyAll(context.Background()) }()
	testkit.Eventually(t, func() bool { return ix.wmu.waiting.Load() == 1 }, 10*time.Second, "the merge waiting")
	update := make(chan error, 1)
	go func() { update <- ix.Update(context.Background(), p) }()
	testkit.Eventually(t, func() bool { return ix.wmu.waiting.Load() == 2 }, 10*time.Second, "the append waiting")
	ix.wmu.Unlock()
	if err := <-update; err != nil {
		t.Fatal(err)
	}
	if err := <-tidy; err != nil {
		t.Fatal(err)
	}
	if len(seen) < 3 || seen[0] || !seen[1] {
		t.Errorf("the append indexed after each step: %v, want it after the first", seen)
	}
}

// TestWatchTidies checks that the watcher merges what a bulk pass left
// once a sync finds nothing to do.
func TestWatchTidies(t *testing.T) {
	// Not parallel: it sets the tunables every other test's passes read.
	defer func(b int64) { bulkBytes = b }(bulkBytes)
	bulkBytes = 1
	ix := openTest(t, genCorpus(t, corpus.Options{Files: 4, Bytes: 256 << 10, Seed: 5}))
	syncAll(t, ix)
	if !mergePending(t, ix) {
		t.Fatal("no merge pending after a bulk pass")
	}
	watching(t, ix)
	testkit.Eventually(t, func() bool { return !mergePending(t, ix) }, 10*time.Second, "the watcher's merge")
}

// TestTidyNothingMarked checks that an index built without a bulk pass
// has nothing to merge.
func TestTidyNothingMarked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeSession(t, dir, "s", hdr+"\n"+line("u1", "", "user", "a small session", 1))
	ix := openTest(t, dir)
	syncAll(t, ix)
	if more, err := ix.Tidy(context.Background()); more || err != nil || mergePending(t, ix) {
		t.Errorf("Tidy: more %v, %v; pending %v", more, err, mergePending(t, ix))
	}
}

func mergePending(t *testing.T, ix *Index) bool {
	t.Helper()
	p, err := ix.MergePending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// segments counts FTS5's segments (each has rows in its %_idx table).
func segments(t *testing.T, ix *Index) int {
	t.Helper()
	var n int
	if err := ix.db.QueryRow(`SELECT count(DISTINCT segid) FROM fts_idx`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func tidyHits(t *testing.T, ix *Index) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, q := range tidyQueries {
		for _, h := range searchOK(t, ix, Query{Text: q, Limit: 20}) {
			out[q] = append(out[q], h.EntryID)
		}
	}
	return out
}
