// Package durable holds the file steps that make a write survive a crash
// whole or not at all: a synced temp file beside the target, a new file
// linked into place (never over an existing one), a synced folder. The
// session format library (piweb/pisession) creates new session files with
// it, internal/sessionstore builds its rewrites, moves and trash on it,
// and internal/own syncs the folder of its whole-file writes.
package durable

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// TempFile writes data to a new synced temp file in dir (named
// .piweb-tmp-*, which no session listing takes) and returns its path.
func TempFile(dir string, data []byte) (string, error) {
	name, err := WriteTemp(dir, ".piweb-tmp-*", 0o600, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("write temp file: %w", err)
	}
	return name, nil
}

// WriteTemp makes a new file in dir named by pattern (as os.CreateTemp
// does), gives it mode, has fill write it, syncs and closes it, and
// returns its path; on any failure the file is removed and the error
// returned as it is.
func WriteTemp(dir, pattern string, mode fs.FileMode, fill func(io.Writer) error) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	err = f.Chmod(mode)
	if err == nil {
		err = fill(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// SyncDir syncs the folder dir, so that the names created, renamed or
// removed in it survive a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Create writes a new file at path, which must not exist, atomically: the
// file appears whole or not at all. Missing folders are made.
func Create(path string, data []byte) error { return create(path, data, SyncDir) }

// create is Create with the folder's sync given (tests fail it). A sync
// that fails removes the new file again: the caller is told the creation
// failed, and a file left behind would be a second fork or clone on its
// retry.
func create(path string, data []byte, sync func(dir string) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	tmp, err := TempFile(filepath.Dir(path), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil { // fails if path exists
		return fmt.Errorf("create: %w", err)
	}
	if err := sync(filepath.Dir(path)); err != nil {
		if rerr := os.Remove(path); rerr != nil {
			return fmt.Errorf("create: %w; %s stays (cannot remove it: %v)", err, path, rerr)
		}
		return fmt.Errorf("create: %w", err)
	}
	return nil
}
