package corpus

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"piweb/pisession"
)

// digest hashes every file of a tree, names included.
func digest(t *testing.T, dir string) [32]byte {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		h.Write([]byte(p[len(dir):]))
		h.Write(bytes.ReplaceAll(b, []byte(dir), nil)) // forks name parents by absolute path
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

func TestDeterministic(t *testing.T) {
	o := Options{Files: 30, Bytes: 1 << 20, BigFiles: 1, BigBytes: 200 << 10, Projects: 3, Seed: 7}
	a, b := t.TempDir(), t.TempDir()
	if _, err := Generate(a, o); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(b, o); err != nil {
		t.Fatal(err)
	}
	if digest(t, a) != digest(t, b) {
		t.Fatal("same options gave different corpora")
	}
}

// TestValidSessions checks that every generated file is a clean pi session
// that pi's listing keeps.
func TestValidSessions(t *testing.T) {
	dir := t.TempDir()
	st, err := Generate(dir, Options{Files: 20, Bytes: 1 << 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	files := pisession.SessionFiles(dir)
	if len(files) != st.Files {
		t.Fatalf("%d files listed, %d written", len(files), st.Files)
	}
	for _, f := range files {
		s, err := pisession.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d := s.Defects(); len(d) > 0 {
			t.Errorf("%s: %v", f, d)
		}
	}
	if n := len(pisession.ListAll(dir)); n != st.Files {
		t.Errorf("listing keeps %d of %d files", n, st.Files)
	}
}

// TestKept: a kept folder is written once, whole (a failed write leaves
// nothing under the name), and found by the next run.
func TestKept(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	writes := 0
	write := func(dir string) error {
		writes++
		return os.MkdirAll(filepath.Join(dir, "sessions"), 0o755)
	}
	if _, err := Kept("k", func(string) error { return os.ErrPermission }); err == nil {
		t.Fatal("a failed write kept")
	}
	for range 2 {
		d, err := Kept("k", write)
		if err != nil || d != filepath.Join(os.TempDir(), "k") {
			t.Fatalf("Kept = %q, %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "k", "sessions")); err != nil || writes != 1 {
		t.Errorf("written %d times, %v", writes, err)
	}
}
