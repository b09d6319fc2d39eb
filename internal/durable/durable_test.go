package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"piweb/internal/testkit"
)

// TestCreateSyncFailLeavesNothing: a new file (a fork, a clone) whose
// folder cannot be synced is reported failed and is not left behind, so
// that a retry does not make a second copy.
func TestCreateSyncFailLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fork.jsonl")
	err := create(path, []byte("x\n"), func(string) error { return syscall.EIO })
	if !errors.Is(err, syscall.EIO) {
		t.Errorf("err = %v, want EIO", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	if err := create(path, []byte("x\n"), SyncDir); err != nil {
		t.Errorf("retry: %v", err)
	}
}

// TestCreateNeverOverwrites: a file already at the path is kept as it was
// and the error is fs.ErrExist; no temp file stays.
func TestCreateNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	testkit.WriteFile(t, path, "mine\n")
	if err := Create(path, []byte("other\n")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("err = %v, want ErrExist", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "mine\n" {
		t.Errorf("file = %q, want it kept", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("folder holds %v, want only the file", ents)
	}
}
