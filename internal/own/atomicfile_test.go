package own

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite replaces a file whole with the mode asked for, and leaves no
// temp file beside it; a missing folder is an error with nothing written.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, data := range []string{"old\n", "new\n"} {
		if err := WriteFile(path, []byte(data), 0o600); err != nil {
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
	if err := WriteFile(filepath.Join(dir, "gone", "f"), []byte("x"), 0o600); err == nil {
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

// TestReadJSON: a missing file is no error and leaves the value; a file
// that does not parse is an error naming it; a good one is read.
func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	v := map[string]int{"kept": 1}
	if found, err := ReadJSON(filepath.Join(dir, "none.json"), &v); found || err != nil || v["kept"] != 1 {
		t.Errorf("missing file: found %v, err %v, value %v", found, err, v)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o600)
	if _, err := ReadJSON(bad, &v); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad file: %v, want an error naming it", err)
	}
	good := filepath.Join(dir, "good.json")
	if err := WritePrivateJSON(good, map[string]int{"a": 2}); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	if found, err := ReadJSON(good, &got); !found || err != nil || got["a"] != 2 {
		t.Errorf("good file: found %v, err %v, value %v", found, err, got)
	}
}
