package sessionstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"piweb/internal/durable"
)

// MoveFile moves the file at src to dst, which must not exist: it never
// replaces a file. Within a file system it links dst to src's inode and
// then removes src, so bytes another process appends meanwhile land in the
// moved file. Where a link is impossible (another file system, as when the
// trash and a project's own session folder are on different disks), it
// copies src into a synced temp file beside dst, links that into place, and
// removes src only if src did not grow during the copy; otherwise dst is
// removed again, src stays, and the error is ErrChanged. When src cannot
// be removed (a read-only folder), dst is removed again: a failed move
// never leaves the file at both places.
func MoveFile(src, dst string) error { return moveFile(src, dst, os.Remove) }

// moveFile is MoveFile with the removal of src as a parameter, for tests.
func moveFile(src, dst string, remove func(string) error) error {
	err := os.Link(src, dst)
	if err == nil {
		return removeMoved(src, dst, remove)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("move: %w", err)
	}
	n, err := copyInto(src, dst)
	if err != nil {
		return err
	}
	if st, err := os.Stat(src); err != nil || st.Size() != n {
		return undoMove(dst, ErrChanged)
	}
	return removeMoved(src, dst, remove)
}

// removeMoved removes src once dst holds its bytes, and makes both folder
// changes durable.
func removeMoved(src, dst string, remove func(string) error) error {
	if err := durable.SyncDir(filepath.Dir(dst)); err != nil {
		return undoMove(dst, fmt.Errorf("move: %w", err))
	}
	if err := remove(src); err != nil {
		return undoMove(dst, fmt.Errorf("move: %w", err))
	}
	return durable.SyncDir(filepath.Dir(src))
}

// undoMove removes dst, the new place of a move that failed with err; when
// even that fails the file is at both places, and the error says so.
func undoMove(dst string, err error) error {
	if rerr := os.Remove(dst); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return fmt.Errorf("%w; the file stays at %s too (cannot remove it: %v)", err, dst, rerr)
	}
	return err
}

// copyInto copies src to a synced temp file in dst's folder and links it
// to dst (failing if dst exists). It returns the number of bytes copied.
func copyInto(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, fmt.Errorf("move: %w", err)
	}
	defer in.Close()
	var n int64
	tmp, err := durable.WriteTemp(filepath.Dir(dst), ".piweb-tmp-*", 0o600, func(w io.Writer) (err error) {
		n, err = io.Copy(w, in)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("move: %w", err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, dst); err != nil {
		return 0, fmt.Errorf("move: %w", err)
	}
	return n, nil
}
