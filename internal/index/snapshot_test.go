package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
	"piweb/pisession"
)

func TestSnapshotRoundTrip(t *testing.T) {
	es := []snapEntry{
		{path: "/a/b.jsonl", fid: fileID{dev: 1, ino: 2, size: 3, mtimeNs: -4}, modified: 1.5, elem: []byte(`{"x":1}`)},
		{path: "/a/c.jsonl", fid: fileID{dev: 1 << 60, ino: 7, size: 1 << 40, mtimeNs: 9}, bad: true},
		{path: "/a/d.jsonl", modified: -0.25, elem: []byte("{}")},
	}
	b, want := encodeSnapshot([]string{"/w", "/x"}, es)
	got, err := decodeSnapshot(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(snapshot{}, snapEntry{}, fileID{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if string(got.out) != `[{"x":1},{}]` || got.escape {
		t.Errorf("output %s (escape %v), want [{\"x\":1},{}]", got.out, got.escape)
	}
	for i := range b {
		bad := append([]byte(nil), b...)
		bad[i] ^= 0x40
		if _, err := decodeSnapshot(bad, nil); err == nil && snapshotSum(bad) {
			t.Errorf("byte %d changed: accepted", i)
		}
		if _, err := decodeSnapshot(b[:i], nil); err == nil && snapshotSum(b[:i]) {
			t.Errorf("cut at %d: accepted", i)
		}
	}
}

// quick is WriteQuickListJSON for the index ix, without the newline.
func quick(ix *Index) ([]byte, bool) {
	var b bytes.Buffer
	ok, err := WriteQuickListJSON(ix.o, &b)
	if err != nil || ok != (b.Len() > 0) {
		panic(fmt.Sprint(ok, err, b.Len()))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), ok
}

// TestSnapshotChanges lists, changes files in every way ls must notice,
// and checks after each change that the snapshot is not used as it was and
// that ListJSON, which then reads only the changed files, still equals the
// direct scan; with nothing changed, QuickListJSON gives the same bytes.
func TestSnapshotChanges(t *testing.T) {
	dir := t.TempDir()
	writeEdgeFiles(t, dir)
	ix := openTest(t, dir)
	if _, ok := quick(ix); ok {
		t.Fatal("quick answer without a snapshot")
	}
	checkList(t, ix, dir)
	for _, s := range edgeChanges(t, dir) {
		t.Run(s.name, func(t *testing.T) {
			want, ok := quick(ix)
			if !ok {
				t.Fatal("no quick answer with nothing changed")
			}
			s.change()
			if b, ok := quick(ix); ok && string(b) == string(want) {
				t.Fatal("quick answer ignores the change")
			}
			checkList(t, ix, dir)
			got, ok := quick(ix)
			if j, _ := ix.ListJSON(context.Background()); !ok || string(got) != string(j) {
				t.Fatalf("quick answer differs from ListJSON:\n%s\n%s", got, j)
			}
		})
	}
}

// edgeChange is a change of the edge files that a listing must see.
type edgeChange struct {
	name   string
	change func()
}

// edgeChanges are the changes of the edge files in dir (writeEdgeFiles),
// applied in turn: an append, a new file, a new project, a removal, a
// rewrite by rename and a new mtime.
func edgeChanges(t *testing.T, dir string) []edgeChange {
	proj := filepath.Join(dir, "sessions", "--w--")
	return []edgeChange{
		{"append", func() {
			testkit.AppendFile(t, filepath.Join(proj, "plain.jsonl"), line("p9", "a2", "user", "later", 30))
		}},
		{"new file", func() { os.WriteFile(filepath.Join(proj, "new.jsonl"), []byte(edgeFiles["named"]), 0o644) }},
		{"new project", func() {
			testkit.WriteFile(t, filepath.Join(dir, "sessions", "--v--", "v.jsonl"), edgeFiles["plain"])
		}},
		{"remove", func() { os.Remove(filepath.Join(proj, "crlf.jsonl")) }},
		{"rewrite", func() {
			os.WriteFile(filepath.Join(proj, "tmp"), []byte(hdr+"\n"+usr+"\n"), 0o644)
			os.Rename(filepath.Join(proj, "tmp"), filepath.Join(proj, "named.jsonl"))
		}},
		{"touch", func() {
			fi, _ := os.Stat(filepath.Join(proj, "header-only.jsonl"))
			mt := fi.ModTime().Add(7e9)
			os.Chtimes(filepath.Join(proj, "header-only.jsonl"), mt, mt)
		}},
	}
}

// TestSnapshotUnreadable checks that a file that could not be read keeps
// the snapshot from answering, so it is retried on every ls.
func TestSnapshotUnreadable(t *testing.T) {
	ix, dir, _ := withUnreadable(t)
	if _, err := ix.ListJSON(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := quick(ix); ok {
		t.Fatal("quick answer with an unreadable file")
	}
	ix.open = openFile
	checkList(t, ix, dir)
	if _, ok := quick(ix); !ok {
		t.Fatal("no quick answer once the file reads")
	}
}

// TestSnapshotManyChanged makes more files change than ListJSON refreshes
// one by one, so that it syncs them all.
func TestSnapshotManyChanged(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := t.TempDir()
	proj := filepath.Join(dir, "sessions", "--w--")
	os.MkdirAll(proj, 0o755)
	ix := openTest(t, dir)
	for round := range 2 {
		for i := range maxStale + 5 {
			p := filepath.Join(proj, pisession.EncodeCwd(string(rune('a'+i%26)))+string(rune('a'+i/26))+".jsonl")
			if round == 0 {
				os.WriteFile(p, []byte(edgeFiles["plain"]), 0o644)
			} else {
				testkit.AppendFile(t, p, line("z", "a2", "user", "more", 9))
			}
		}
		checkList(t, ix, dir)
	}
}
