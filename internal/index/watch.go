package index

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch keeps the index current until ctx ends. It watches the sessions
// root, every project folder (adding new ones as they appear) and the flat
// session dirs; a change to a file is indexed once the file has been quiet
// for Options.Debounce, and a stat rescan every Options.Rescan catches
// whatever events were missed (overflow, network file systems, folders
// created between a readdir and a watch). It brings the whole index up to
// date at once, on another goroutine, while it indexes the changes it
// hears of. Subscribers get an Event per change. It returns once its
// syncs have ended.
func (ix *Index) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return wrap("watch", err)
	}
	defer w.Close()
	ix.watchDirs(w)
	// Syncs run beside the loop, one at a time: the events of a live
	// session are indexed while a sync reads the text of big files (it
	// lets them in between its parts).
	var syncs sync.WaitGroup
	defer syncs.Wait()
	synced := ix.syncBeside(ctx, &syncs, "sync")
	rescan := time.NewTicker(cmpOr(ix.o.Rescan, 2*time.Second))
	defer rescan.Stop()
	debounce := cmpOr(ix.o.Debounce, 10*time.Millisecond)
	due := map[string]time.Time{}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			ix.onEvent(w, ev, due, debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			ix.warn("watch", "err", err) // an overflow: the rescan catches up
		case <-timer.C:
			ix.flushDue(ctx, due)
		case <-rescan.C:
			ix.watchDirs(w)
			select {
			case <-synced:
				synced = ix.syncBeside(ctx, &syncs, "rescan")
			default: // the last one still runs
			}
		}
		resetTimer(timer, due)
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// watchDirs adds every session dir to the watcher; adding a watched dir
// again is harmless. It reads the roots only, not the folders' files:
// every two seconds at 100,000 sessions that was 100,000 paths made and
// dropped (issue 21 item 11).
func (ix *Index) watchDirs(w *fsnotify.Watcher) {
	_, dirs := foldersOf(ix.rootList())
	for _, d := range dirs {
		if err := w.Add(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			ix.warn("watch", "dir", d, "err", err)
		}
	}
}

// onEvent notes a changed session file, or starts watching a new folder
// and notes the files already in it.
func (ix *Index) onEvent(w *fsnotify.Watcher, ev fsnotify.Event, due map[string]time.Time, debounce time.Duration) {
	if strings.HasSuffix(ev.Name, ".jsonl") {
		due[ev.Name] = time.Now().Add(debounce)
		return
	}
	if !ev.Has(fsnotify.Create) || !ix.isProjectDir(ev.Name) {
		return
	}
	if fi, err := os.Stat(ev.Name); err != nil || !fi.IsDir() {
		return
	}
	if err := w.Add(ev.Name); err != nil {
		ix.warn("watch", "path", ev.Name, "err", err)
	}
	for _, d := range readDir(ev.Name) {
		if strings.HasSuffix(d.Name(), ".jsonl") {
			due[filepath.Join(ev.Name, d.Name())] = time.Now().Add(debounce)
		}
	}
}

// isProjectDir reports whether dir is a folder of the sessions tree.
func (ix *Index) isProjectDir(dir string) bool {
	return filepath.Dir(dir) == ix.rootList()[0].dir
}

// isListAll reports whether pi's listAll reads the file.
func (ix *Index) isListAll(path string) bool {
	return ix.isProjectDir(filepath.Dir(path))
}

func (ix *Index) flushDue(ctx context.Context, due map[string]time.Time) {
	now := time.Now()
	for p, t := range due {
		if !t.After(now) {
			delete(due, p)
			if err := ix.Update(ctx, p); err != nil && ctx.Err() == nil {
				ix.warn("rescan", "path", p, "err", err)
			}
		}
	}
}

// syncBeside starts a Sync on its own goroutine, counted in wg; the channel
// is closed when it ends. A Sync that found nothing to do is followed by
// the merge a bulk pass left, if any (Tidy), step by step, other writers
// coming in between; the next rescan waits for it.
func (ix *Index) syncBeside(ctx context.Context, wg *sync.WaitGroup, what string) <-chan struct{} {
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		st, err := ix.sync(ctx, true, false)
		if err == nil && idle(st) {
			err = ix.TidyAll(ctx)
		}
		if err != nil && ctx.Err() == nil {
			ix.warn("rescan", "what", what, "err", err)
		}
	})
	return done
}

// idle reports whether a Sync changed nothing.
func idle(st SyncStats) bool { return st.Changed == 0 && st.Removed == 0 && st.Texted == 0 }

func resetTimer(t *time.Timer, due map[string]time.Time) {
	next := time.Hour
	for _, d := range due {
		next = min(next, max(0, time.Until(d)))
	}
	t.Reset(next)
}

// Update indexes one file now (listing and text together, so the bytes are
// read once, unless they are more than a text part: then their text is
// left to the next sync's text pass) and tells subscribers what changed.
//
// It waits for the index's writer no longer than ctx allows: a sync
// indexing a big file holds it for seconds, and a request that changed a
// small file must not wait for that (the watcher indexes the file later).
func (ix *Index) Update(ctx context.Context, path string) error {
	if err := ix.wmu.LockCtx(ctx); err != nil {
		return wrap("update "+path, err)
	}
	defer ix.wmu.Unlock()
	old, err := loadRow(ctx, ix.wdb, path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	var u *update
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if old == nil {
			return nil
		}
		u = &update{path: path, removed: true, old: old}
	case err == nil && old != nil && old.err == "" && old.fid.unchanged(idOf(fi)):
		return nil
	default:
		u = ix.prepare(path, ix.isListAll(path), old, true, nil)
	}
	var ev Event
	err = ix.batch(ctx, func(tx *sql.Tx) error {
		var err error
		ev, err = ix.apply(ctx, tx, u)
		return err
	})
	if err == nil {
		ix.publish(ev)
	}
	return err
}
