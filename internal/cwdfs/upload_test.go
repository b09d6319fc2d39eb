package cwdfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"piweb/internal/errs"
)

// failing reads n bytes and then fails as a full disk does.
type failing struct{ n int }

func (f *failing) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, syscall.ENOSPC
	}
	k := min(len(p), f.n)
	for i := range k {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

func kindOf(err error) errs.Kind {
	var fe *errs.Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return errs.Other
}

// names lists a folder.
func names(t *testing.T, dir string) string {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return strings.Join(out, ",")
}

func TestUpload(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	os.Mkdir(sub, 0o755)
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(sub, name)); return string(b) }

	if n, err := Upload(root, sub, "a b ü.txt", strings.NewReader("first"), 100, false); err != nil || n != 5 {
		t.Fatal(err)
	}
	if got := read("a b ü.txt"); got != "first" {
		t.Errorf("uploaded %q", got)
	}
	if _, err := Upload(root, sub, "a b ü.txt", strings.NewReader("second"), 100, false); kindOf(err) != errs.Exists {
		t.Errorf("over an existing file without confirmation: %v", err)
	}
	if got := read("a b ü.txt"); got != "first" {
		t.Errorf("refused upload changed the file: %q", got)
	}
	if _, err := Upload(root, sub, "a b ü.txt", strings.NewReader("second"), 100, true); err != nil || read("a b ü.txt") != "second" {
		t.Errorf("confirmed overwrite: %v, %q", err, read("a b ü.txt"))
	}
	if _, err := Upload(root, sub, "big", strings.NewReader(strings.Repeat("x", 101)), 100, false); kindOf(err) != errs.TooLarge {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := Upload(root, sub, "full", &failing{n: 70000}, 1<<20, false); kindOf(err) != errs.NoSpace {
		t.Errorf("full disk: %v", err)
	}
	if got := names(t, sub); got != "a b ü.txt" {
		t.Errorf("left behind after the failures: %s", got)
	}
	os.Mkdir(filepath.Join(sub, "adir"), 0o755)
	if _, err := Upload(root, sub, "adir", strings.NewReader("x"), 100, true); kindOf(err) != errs.Invalid {
		t.Errorf("over a folder: %v", err)
	}
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b", ".piweb-upload-x", strings.Repeat("n", 256)} {
		if _, err := Upload(root, sub, bad, strings.NewReader("x"), 100, false); kindOf(err) != errs.Invalid {
			t.Errorf("name %q: %v", bad, err)
		}
	}
	if _, err := Upload(sub, root, "x", strings.NewReader("x"), 100, false); kindOf(err) != errs.Forbidden {
		t.Errorf("a folder outside the root: %v", err)
	}
	var _ io.Reader = &failing{}
}
