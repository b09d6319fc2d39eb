package sessionstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/testkit"
)

func TestMoveFile(t *testing.T) {
	data := []byte(`{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}` + "\n")
	src := t.TempDir()
	for _, tc := range []struct {
		name string
		dst  string
	}{
		{"same file system", t.TempDir()},
		{"another file system", testkit.OtherFS(t, src)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to := filepath.Join(src, "a.jsonl"), filepath.Join(tc.dst, "a.jsonl")
			os.WriteFile(from, data, 0o644)
			if err := MoveFile(from, to); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(to); err != nil || string(got) != string(data) {
				t.Fatalf("moved file %q, %v", got, err)
			}
			if _, err := os.Stat(from); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("source still there: %v", err)
			}
			// Back again, onto a taken name: refused, nothing changes.
			os.WriteFile(from, []byte("other\n"), 0o644)
			if err := MoveFile(to, from); !errors.Is(err, fs.ErrExist) {
				t.Errorf("move onto an existing file: %v", err)
			}
			if got, _ := os.ReadFile(from); string(got) != "other\n" {
				t.Errorf("existing file replaced: %q", got)
			}
			if got, _ := os.ReadFile(to); string(got) != string(data) {
				t.Errorf("moved file changed: %q", got)
			}
			if ents, _ := os.ReadDir(tc.dst); len(ents) != 1 {
				t.Errorf("temp files left: %v", ents)
			}
		})
	}
}
