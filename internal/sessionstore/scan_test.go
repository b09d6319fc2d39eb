package sessionstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestScanTreeKept: the cache keeps a file's scan, reads nothing of an
// unchanged file, only the appended bytes of a grown one (a label of an
// old entry, a new branch), and answers as a fresh parse; a rewrite is
// scanned whole again.
func TestScanTreeKept(t *testing.T) {
	data := testkit.ReadFile(t, "../../pisession/testdata/pi-1.6.0/compact.jsonl")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewCache(4, 64<<20)
	var read int64
	c.countRead = func(n int64) { read += n }
	first := pisession.Parse(data).Entries[0].ID
	more := `{"type":"label","id":"l9","parentId":"` + first + `","timestamp":"t","targetId":"` + first + `","label":"kept"}` + "\n" +
		`{"type":"message","id":"b9","parentId":"` + first + `","timestamp":"t","message":{"role":"user","content":"branch"}}` + "\n"
	for _, step := range []struct {
		name   string
		change func() error
		read   int64
	}{
		{"first", func() error { return nil }, int64(len(data))},
		{"unchanged", func() error { return nil }, 0},
		{"appended", func() error { return appendTo(path, more) }, int64(len(more))},
		{"rewritten", func() error { return os.WriteFile(path+".new", data, 0o600) }, int64(len(data))},
	} {
		if err := step.change(); err != nil {
			t.Fatal(err)
		}
		if step.name == "rewritten" {
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
		}
		read = 0
		got, ok := c.ScanTree(path)
		if !ok || read != step.read {
			t.Fatalf("%s: ok %v, read %d bytes, want %d", step.name, ok, read, step.read)
		}
		if d := cmp.Diff(parsedTree(t, path), *got); d != "" {
			t.Errorf("%s: scan differs from a fresh parse (-parse +scan):\n%s", step.name, d)
		}
	}
}

func appendTo(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	return errors.Join(err, f.Close())
}

// parsedTree is what a fresh parse of the file at path gives a detail.
func parsedTree(t *testing.T, path string) pisession.TreeScan {
	data := testkit.ReadFile(t, path)
	s := pisession.Parse(data)
	labels := s.LabelMap()
	want := pisession.TreeScan{Header: s.Header.Raw, Tree: s.CompactTree(labels), Labels: labels, Problems: s.Problems}
	if l := s.Leaf(); l != nil {
		want.Leaf = l.ID
	}
	return want
}
