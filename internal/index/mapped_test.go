package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/pitest"
	"piweb/pisession"
)

// TestSkimMappedAsRead checks that a file mapped (foldMapped), whole or a
// window at a time (windows of 4 KB send long lines back to the read),
// gives the snapshot entry of the same file read (stream), on every file of the
// fixtures, of pi 1.6.0's listing corpus, of the edge cases and of a
// generated corpus.
func TestSkimMappedAsRead(t *testing.T) {
	edge := t.TempDir()
	writeEdgeFiles(t, edge)
	dirs := []string{fixtureAgentDir(t), edge,
		pitest.ListDir(t, filepath.Join("..", "..", "pisession", "testdata", "pi-1.6.0", "list")),
		genCorpus(t, corpus.Options{Files: 12, Bytes: 1 << 20, BigFiles: 1, BigBytes: 256 << 10, Seed: 6})}
	ix := &Index{o: Options{}, open: openFile, wmu: newWriteLock()}
	n := 0
	for _, dir := range dirs {
		for _, p := range pisession.SessionFiles(dir) {
			read := ix.skimFrom(p, true, 1<<62, 0)
			for _, window := range []int64{mapWindow, 64 << 10, 4096} {
				mapped := ix.skimFrom(p, true, 1, window)
				if diff := cmp.Diff(read, mapped, cmp.AllowUnexported(snapEntry{}, fileID{})); diff != "" {
					t.Errorf("%s: mapped %d bytes at a time differs from read (-read +mapped):\n%s", p, window, diff)
				}
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d files compared", n)
	}
}

// TestFoldMappedShrunk checks that a file that shrinks under its mapping
// is not listed from the mapping: the access past its new end faults,
// foldMapped says so, and skim reads the file instead.
func TestFoldMappedShrunk(t *testing.T) {
	dir := t.TempDir()
	p, _ := writeBig(t, dir, 2<<20)
	f, err := openFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 4096); err != nil {
		t.Fatal(err)
	}
	ix := &Index{open: openFile, wmu: newWriteLock()}
	u := &update{path: p, listAll: true, full: true, listOnly: true, fid: idOf(fi)}
	if ix.foldMapped(f, u, mapWindow) {
		t.Fatal("foldMapped read a file that shrank under it")
	}
}
