package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite replaces a file whole with the mode asked for, and leaves no
// temp file beside it; a missing folder is an error with nothing written.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, data := range []string{"old\n", "new\n"} {
		if err := Write(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("content %q, want %q", got, data)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("folder holds %d files, want 1", len(names))
	}
	if err := Write(filepath.Join(dir, "gone", "f"), []byte("x"), 0o600); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
}

// TestWritePrivateJSON makes the folder the user's alone and ends the JSON
// with a newline.
func TestWritePrivateJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf", "x.json")
	if err := WritePrivateJSON(path, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("content %q", got)
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", fi.Mode().Perm())
	}
}
