package index

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"piweb/internal/corpus"
	"piweb/pisession"
)

// TestStreamPieces reads every edge file and a small corpus in pieces of a
// few bytes (each line then grows the buffer), of a few dozen and of a few
// lines, and compares what the index keeps of each file with what one
// whole read of the file gives (Update's path).
func TestStreamPieces(t *testing.T) {
	dir := t.TempDir()
	writeEdgeFiles(t, dir)
	if _, err := corpus.Generate(dir, corpus.Options{Files: 6, Bytes: 256 << 10, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	files := pisession.SessionFiles(dir)
	whole := openTest(t, dir)
	for _, p := range files {
		if err := whole.Update(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	want := storedRows(t, whole, files)
	defer func(n int) { readChunk = n }(readChunk)
	for _, n := range []int{1, 3, 4, 5, 17, 64, 1000, 5000} {
		readChunk = n
		ix := openTest(t, dir)
		if _, err := ix.Sync(context.Background(), false); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, storedRows(t, ix, files), cmp.AllowUnexported(fileRow{}, head{}, meta{}, body{}, fileID{}),
			cmpopts.IgnoreFields(fileRow{}, "id", "textOffset", "textLin"), cmpopts.EquateNaNs(), cmpopts.EquateEmpty(), droppedBodies); diff != "" {
			t.Fatalf("pieces of %d bytes: rows differ from a whole read (-whole +pieces):\n%s", n, diff)
		}
		checkList(t, ix, dir)
	}
}

func storedRows(t *testing.T, ix *Index, files []string) []*fileRow {
	t.Helper()
	var out []*fileRow
	for _, p := range files {
		r, err := loadRow(context.Background(), ix.db, p)
		if err != nil || r == nil {
			t.Fatalf("%s: %v %v", p, r, err)
		}
		out = append(out, r)
	}
	return out
}

// droppedBodies makes two dropped bodies equal: after a drop nothing else
// of a body is used.
var droppedBodies = cmp.Comparer(func(a, b body) bool {
	return a.Dropped && b.Dropped || a == b
})
