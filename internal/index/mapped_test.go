package index

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestSkimMappedAsRead checks that a file mapped (split), whole or in
// parts, gives the snapshot entry of the same file read (stream), on
// every file of the fixtures, of pi 1.6.0's listing corpus, of the edge
// cases and of a generated corpus.
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
			for _, part := range []int64{mapPart, 64 << 10, 4096} {
				mapped := ix.skimFrom(p, true, 1, part)
				if diff := cmp.Diff(read, mapped, cmp.AllowUnexported(snapEntry{}, fileID{})); diff != "" {
					t.Errorf("%s: mapped in parts of %d bytes differs from read (-read +mapped):\n%s", p, part, diff)
				}
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d files compared", n)
	}
}

// TestSplitEveryCut lists small crafted files (damaged lines, drops,
// names, blank and CRLF lines, a header further on, no final newline)
// in two parts cut between every two bytes, and them and the edge files
// in parts of 1, 7 and 64 bytes, the parts scanned last first as workers
// might, and checks that each gives the snapshot entry of the file read
// whole, and that a file whose first line is its header is not read
// instead (which would hide a wrong cut).
func TestSplitEveryCut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for n, c := range splitFiles {
		writeSession(t, dir, "cut-"+n, c)
	}
	writeEdgeFiles(t, dir)
	var reads int
	ix := &Index{o: Options{}, wmu: newWriteLock(), open: func(p string) (readFile, error) {
		reads++
		return openFile(p)
	}}
	for _, p := range pisession.SessionFiles(dir) {
		read := ix.skimFrom(p, true, 1<<62, 0)
		b := testkit.ReadFile(t, p)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		var splits [][]int64
		for k := range fi.Size() {
			if strings.HasPrefix(filepath.Base(p), "cut-") {
				splits = append(splits, []int64{0, k + 1})
			}
		}
		for _, part := range []int64{1, 7, 64} {
			splits = append(splits, ix.newSplit(p, true, fi.Size(), part).starts)
		}
		for _, starts := range splits {
			reads = 0
			got := splitBackwards(t, ix, p, starts)
			if reads > 0 && bytes.HasPrefix(b, []byte(`{"type":"session"`)) {
				t.Fatalf("%s: in parts from %v: read instead", p, starts)
			}
			if got.path == read.path && got.fid == read.fid && got.bad == read.bad &&
				math.Float64bits(got.modified) == math.Float64bits(read.modified) && bytes.Equal(got.elem, read.elem) {
				continue // cmp.Diff for every cut would take seconds
			}
			t.Fatalf("%s: in parts from %v (-read +parts):\n%s", p, starts, cmp.Diff(read, got, cmp.AllowUnexported(snapEntry{}, fileID{})))
		}
	}
}

// FuzzSplit lists a file in three parts cut anywhere, the last first,
// and compares the entry with the file read whole.
func FuzzSplit(f *testing.F) {
	for _, files := range []map[string]string{splitFiles, edgeFiles} {
		for _, c := range files {
			f.Add([]byte(c), uint16(len(c)/3), uint16(len(c)/2))
		}
	}
	ix := &Index{o: Options{}, open: openFile, wmu: newWriteLock()}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte, a, c uint16) {
		p := writeSession(t, dir, "f", string(b))
		cuts := []int64{0, int64(min(a, c)) + 1, int64(max(a, c)) + 2}
		read := ix.skimFrom(p, true, 1<<62, 0)
		if diff := cmp.Diff(read, splitBackwards(t, ix, p, cuts), cmp.AllowUnexported(snapEntry{}, fileID{})); diff != "" {
			t.Fatalf("in parts from %v (-read +parts):\n%s", cuts, diff)
		}
	})
}

// splitBackwards lists the file at path in parts from starts, the last
// part first.
func splitBackwards(t *testing.T, ix *Index, path string, starts []int64) snapEntry {
	f, fi := openStat(t, path)
	defer f.Close()
	s := ix.splitAt(path, true, starts)
	s.use(f, idOf(fi))
	for i := len(s.parts) - 1; i >= 0; i-- {
		if e, done := s.scan(i); done {
			if i != 0 {
				t.Fatalf("done after part %d of %d", i, len(s.parts))
			}
			return e
		}
	}
	t.Fatal("never done")
	return snapEntry{}
}

// openStat opens the file at path, for the caller to close, and stats it.
func openStat(t *testing.T, path string) (*os.File, os.FileInfo) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	return f, fi
}

// splitFiles are crafted for TestSplitEveryCut: what one part sees
// decides nothing alone.
var splitFiles = map[string]string{
	"damaged-middle": hdr + "\n" + asst + "\n{\"type\":\"message\",\"id\":\n" + usr + "\n" + name + "\n" + asst + "\n",
	"damaged-tail":   hdr + "\n" + usr + "\n" + asst + "\n" + `{"type":"message","id":"z","parentId":"a2","timestamp":"x","message":{"role":"user","content":"late`,
	"valid-tail":     hdr + "\n" + asst + "\n" + asst + "\n" + usr,
	"drop-middle": hdr + "\n" + usr + "\n" + `{"type":"message","id":"b","parentId":"a1","timestamp":"x","message":{"role":"assistant","content":5,"timestamp":1767323049000}}` +
		"\n" + asst + "\n" + usr + "\n",
	"first-late":   hdr + "\n" + asst + "\n\n   \n" + asst + "\r\n" + strings.Replace(usr, "hello world", "late first", 1) + "\n" + usr + "\n",
	"names":        hdr + "\n" + name + "\n" + usr + "\n" + strings.Replace(name, "  named  ", "other", 1) + "\n" + asst + "\n",
	"header-later": "\n\nnull\n0\n\"\"\n\n" + hdr + "\n" + usr + "\nnot json\n" + asst + "\n",
	"negative-ts":  hdr + "\n" + strings.Replace(usr, "1767323046000", "-5", 1) + "\n\n",
	"lone-cr":      hdr + "\r" + usr + "\n" + asst + "\r\n\r\n",
}

// TestSplitShrunk checks that a file that shrinks under its mapping is
// not listed from the mapping: the access past its new end faults, the
// part says so, and the file is read instead.
func TestSplitShrunk(t *testing.T) {
	dir := t.TempDir()
	p, _ := writeBig(t, dir, 2<<20)
	f, fi := openStat(t, p)
	defer f.Close()
	if err := os.Truncate(p, 4096); err != nil {
		t.Fatal(err)
	}
	ix := &Index{open: openFile, wmu: newWriteLock()}
	s := ix.newSplit(p, true, fi.Size(), mapPart)
	s.use(f, idOf(fi))
	if s.scanFirst() {
		t.Fatal("a part was listed from a file that shrank under it")
	}
	s = ix.newSplit(p, true, fi.Size(), 1<<20)
	s.use(f, idOf(fi))
	if diff := cmp.Diff(ix.skimFrom(p, true, 1<<62, 0), s.scanAll(), cmp.AllowUnexported(snapEntry{}, fileID{})); diff != "" {
		t.Errorf("shrunk file (-read +split):\n%s", diff)
	}
}
