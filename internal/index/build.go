package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"piweb/internal/durable"
)

// A cold build (a bulk one-read Sync into an index without entries, with
// no reader connection open) writes both files without journals or
// fsyncs, and the index's writer does not wait for the text file's
// commits: the WAL wrote every page twice (once as a frame, once at the
// checkpoint) and the writer waited seconds for FTS5's segment writes
// (issue 24 item 3; decision 0053). Nothing of the build is durable until
// its end, which switches both files back to WAL, fsyncs them and only
// then removes the marker file (buildMarker) created before the build
// began. A build that did not end (a crash, a failed commit, an
// interrupted pass) leaves the marker, and the next Open deletes both
// files and builds them again: the index is a cache of the session files.
//
// The builder holds an exclusive flock on the marker for the build's
// length: another process's Open waits for it (settleBuild), so it never
// reads a file being written without a journal, and tells a dead
// builder's marker (the lock free, the marker still there) from a live one.

// buildMarker is the marker of a build of the index at path.
func buildMarker(path string) string { return path + ".building" }

// build is an unjournaled build in progress.
type build struct {
	marker *os.File // locked (flock) until the build ends
}

// startBuild begins an unjournaled build if nothing else reads or writes
// the index; it returns nil (and leaves the files as they were) when it
// cannot, and the Sync goes on journaled.
func (ix *Index) startBuild(ctx context.Context) *build {
	if ix.journaled || ix.db.Stats().OpenConnections > 0 {
		return nil
	}
	f, err := lockMarker(buildMarker(ix.path))
	if err != nil {
		ix.warn("cold build journaled", "err", err)
		return nil
	}
	b := &build{marker: f}
	if err := ix.setJournal(ctx, "off", "OFF"); err != nil {
		ix.warn("cold build journaled", "err", err)
		// Nothing was written yet: the marker goes unless a file stayed
		// without its journal.
		b.abandon(ix.setJournal(ctx, "wal", "NORMAL") != nil)
		return nil
	}
	return b
}

// lockMarker creates and locks the marker at p, and makes it durable
// before any page is written without a journal.
func lockMarker(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another build holds %s: %w", p, err)
	}
	if err := errors.Join(f.Sync(), durable.SyncDir(filepath.Dir(p))); err != nil {
		f.Close()
		os.Remove(p)
		return nil, err
	}
	return f, nil
}

// setJournal sets both writer connections' journal mode (want is what
// SQLite answers when it took it) and synchronous setting.
func (ix *Index) setJournal(ctx context.Context, want, sync string) error {
	set := func(q querier) error {
		var got string
		if err := q.QueryRowContext(ctx, `PRAGMA journal_mode = `+want).Scan(&got); err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("journal mode %s, not %s", got, want)
		}
		rows, err := q.QueryContext(ctx, `PRAGMA synchronous = `+sync)
		if err == nil {
			err = rows.Close()
		}
		return err
	}
	if err := set(ix.wdb); err != nil {
		return wrap("journal", err)
	}
	return wrap("journal", ix.textW.read(set))
}

// endBuild ends the build: with failed nil, it makes it durable (both
// files back to WAL and fsynced, then the marker removed); else it leaves
// the marker, for the next Open to build the index again. The text file
// holds no open transaction.
func (ix *Index) endBuild(ctx context.Context, failed error) error {
	b := ix.build
	ix.build = nil
	err := ix.setJournal(ctx, "wal", "NORMAL")
	for _, p := range []string{ix.path, textPath(ix.path)} {
		if err == nil && failed == nil {
			err = syncFile(p)
		}
	}
	b.abandon(err != nil || failed != nil)
	return errors.Join(failed, err)
}

// abandon ends the build's lock; keep leaves the marker for the next Open
// to rebuild the index.
func (b *build) abandon(keep bool) {
	if !keep {
		os.Remove(b.marker.Name())
		durable.SyncDir(filepath.Dir(b.marker.Name()))
	}
	b.marker.Close()
}

// settleBuild runs before the index at path is opened: it waits while
// another process builds it, and deletes the files of a build that did
// not end.
func settleBuild(path string, warn func(string, ...any)) error {
	for {
		f, err := os.Open(buildMarker(path))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		done, err := settleMarker(f, path, warn)
		f.Close()
		if done || err != nil {
			return err
		}
	}
}

// settleMarker takes the lock of the marker f; it reports false when the
// marker was replaced meanwhile (another build began), to look again.
func settleMarker(f *os.File, path string, warn func(string, ...any)) (bool, error) {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		warn("waiting for another process's cold build", "path", path)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			return false, fmt.Errorf("index: %w", err)
		}
	}
	st, err := os.Stat(f.Name())
	if errors.Is(err, os.ErrNotExist) {
		return true, nil // the build ended
	}
	mine, ferr := f.Stat()
	if err != nil || ferr != nil {
		return false, fmt.Errorf("index: %w", errors.Join(err, ferr))
	}
	if !os.SameFile(st, mine) {
		return false, nil
	}
	warn("rebuilding an index whose cold build did not end", "path", path)
	if err := removeIndex(path); err != nil {
		return false, err
	}
	return true, wrap("build marker", os.Remove(f.Name()))
}

// removeIndex deletes the index at path and its text file.
func removeIndex(path string) error {
	for _, p := range []string{path, textPath(path)} {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(p + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("index: remove index: %w", err)
			}
		}
	}
	return nil
}

// syncFile fsyncs the file at p.
func syncFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
