package index

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// TestCrashBetweenCommits: a write transaction commits the text file's
// transaction first, then the index's (textdb.go). A crash between the
// two, at any commit of a sync (a cold one, with a big file in parts; an
// append; a rewrite; a removal), loses no text and doubles none (nor the
// branch index a cold pass drops until its end, nor the mark of its
// segments to merge, tidy.go): the next Open deletes the text rows above
// the entries rows, and the next Sync reads again what the lost
// transaction had read, so that the index ends as the one of a run
// without the crash, row for row.
func TestCrashBetweenCommits(t *testing.T) {
	defer func(p, b, h int64) { textPart, bulkBytes, heldMax = p, b, h }(textPart, bulkBytes, heldMax)
	// Parts, a bulk pass and many commits in a small corpus.
	textPart, bulkBytes, heldMax = 64<<10, 256<<10, 32<<10
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir, big string)
		at     int  // the commit that crashes
		noText bool // the crashed transaction wrote no text rows
	}{
		{name: "cold, before any text", at: 1, noText: true}, // the branch index dropped (dropBranchIndex)
		{name: "cold, first text", at: 2},
		{name: "cold, in the big file", at: 3},
		{name: "cold, last commit", at: -1},
		{name: "append", at: 1, change: func(t *testing.T, dir, big string) {
			f, err := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.WriteString(line("a1", "u0", "user", "appended after the crash", 0))
		}},
		{name: "rewrite", at: 1, change: func(t *testing.T, dir, big string) {
			testkit.WriteFile(t, big, hdr+"\n"+line("n1", "", "user", "rewritten whole", 0))
		}},
		{name: "remove", at: 1, noText: true, change: func(t *testing.T, dir, big string) {
			if err := os.Remove(big); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := genCorpus(t, corpus.Options{Files: 12, Bytes: 512 << 10, Seed: 7})
			big, _ := writeBig(t, dir, 256<<10)
			ref, ix := openTest(t, dir), openTest(t, dir)
			ix.journaled = true // the build's crashes: TestCrashInBuild
			if tc.change != nil {
				syncAll(t, ref)
				syncAll(t, ix)
				tc.change(t, dir, big)
			}
			syncAll(t, ref)
			ix, left := crashSync(t, ix, dir, tc.at)
			if left == 0 && !tc.noText {
				t.Error("the crash left no text rows above the entries rows: nothing tested")
			}
			if n := orphanTexts(t, ix); n != 0 {
				t.Errorf("%d text rows without entries rows after the reopen", n)
			}
			var idx int
			if ix.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'entries_branch'`).Scan(&idx); idx != 1 {
				t.Error("no branch index after the reopen")
			}
			syncAll(t, ix)
			if diff := cmp.Diff(roundFloats(dumpIndex(t, ref)), roundFloats(dumpIndex(t, ix))); diff != "" {
				t.Errorf("after the crash (-without +with):\n%s", diff)
			}
			if n := orphanTexts(t, ix); n != 0 {
				t.Errorf("%d text rows without entries rows", n)
			}
			if p, q := mergePending(t, ref), mergePending(t, ix); p != q {
				t.Errorf("merge pending %v after the crash, %v without", q, p)
			}
		})
	}
}

// crashSync syncs ix, crashing between the two commits of its at-th write
// transaction (-1: its last, as a sync of a copy of ix counts them), and
// returns ix opened again and the text rows of no entries rows the crash
// left.
func crashSync(t *testing.T, ix *Index, dir string, at int) (*Index, int) {
	t.Helper()
	ctx := context.Background()
	if at < 0 {
		count := openTest(t, dir)
		count.crashAfterText = func() bool { at++; return false }
		at = 0
		syncAll(t, count)
	}
	commits := 0
	ix.crashAfterText = func() bool { commits++; return commits == at }
	if _, err := ix.Sync(ctx, true); !errors.Is(err, errCrashed) {
		t.Fatalf("sync: %v, want the crash at commit %d of %d", err, at, commits)
	}
	left := orphanTexts(t, ix)
	ix.Close()
	again := openWith(t, ix.o)
	return again, left
}

// orphanTexts counts the text rows of no entries row.
func orphanTexts(t *testing.T, ix *Index) int {
	t.Helper()
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM fts WHERE rowid NOT IN (SELECT rowid FROM entries)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// roundFloats rounds the numbers with a fraction in rows to 12 digits: a
// file whose first part was committed before the crash is read on as an
// appended one, and its usage is summed in another order.
func roundFloats(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fracNumber.ReplaceAllStringFunc(r, func(n string) string {
			f, _ := strconv.ParseFloat(n, 64)
			return strconv.FormatFloat(f, 'g', 12, 64)
		})
	}
	return out
}

var fracNumber = regexp.MustCompile(`\d+\.\d+(e[-+]?\d+)?`)
