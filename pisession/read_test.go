package pisession

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestReadAll checks the unzeroed read against os.ReadFile: every size
// around the builder's rounding, and a device whose size Stat does not
// tell
// (a pipe, which also makes the buffer grow).
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 7, 511, 512, 513, 4095, 4096, 70000} {
		path := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("ab\n"), n)[:n]
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("size %d: got %d bytes, %v", n, len(got), err)
		}
	}
	r, w, err := os.Pipe() // no size to start from: the buffer grows
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := bytes.Repeat([]byte("0123456789\n"), 3000)
	go func() { w.Write(want); w.Close() }()
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	if got, err := readAll(fmt.Sprintf("/proc/self/fd/%d", r.Fd())); err != nil || !bytes.Equal(got, want) {
		t.Errorf("pipe: got %d bytes, %v", len(got), err)
	}
	if got, err := readAll(os.DevNull); err != nil || len(got) != 0 {
		t.Errorf("%s: %q, %v", os.DevNull, got, err)
	}
	if _, err := readAll(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
