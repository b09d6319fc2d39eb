package index

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A cold ls (no index file yet) needs only pi's listing, not the index:
// SkimListJSON reads each session file once for its listing element,
// with the listing pass's own validating reader but none of the index's
// metadata (usage, leaves, labels), and writes the listing snapshot
// alone. SQLite is not opened: writing every file's row, usage rows and
// metadata was about half of a cold ls's CPU time. The index is built by
// whoever needs it (serve, search, piweb index), and a later ListJSON
// brings the rows of changed files up to date from the snapshot as it
// always does. The elements are those ListJSON stores, computed by the
// same code (listChunk, listing, infoJSON), so the output is the same
// bytes.

// SkimListJSON is ListJSON for an agent dir whose index file does not
// exist: ok is false, and nothing done, when it does (ListJSON answers
// then). Files the snapshot at hand still matches are not read again.
func SkimListJSON(ctx context.Context, o Options) (out []byte, ok bool, err error) {
	if o, err = o.withDefaults(); err != nil {
		return nil, false, err
	}
	if _, err := os.Lstat(o.Path); !errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(o.Path), 0o700); err != nil {
		return nil, false, wrap("cache dir", err)
	}
	var old []snapEntry
	snap, done := readSnapshot(snapPath(o.Path), nil)
	defer done()
	if snap != nil {
		old = snap.entries
	}
	files, _ := scan(roots(o.AgentDir, o.Getenv, nil), true)
	es, stale, _ := diffSnapshot(files, old)
	if err := skimAll(ctx, o, files, es, stale); err != nil {
		return nil, false, err
	}
	b, s := encodeSnapshot(nil, es) // copies the elements out of the old snapshot
	if err := writeSnapshot(snapPath(o.Path), b); err != nil {
		o.Log.Warn("index: listing snapshot", "err", err)
	}
	return outputJSON(s.out, s.escape), true, nil
}

// skimAll fills the entries of the stale paths (diffSnapshot), reading the files on GOMAXPROCS goroutines, biggest first so
// that a few large files do not end the pass on one core.
func skimAll(ctx context.Context, o Options, files []found, es []snapEntry, stale []string) error {
	isStale := make(map[string]bool, len(stale))
	for _, p := range stale {
		isStale[p] = true
	}
	var todo []int
	for i, f := range files {
		switch {
		case !isStale[f.path]:
		case !f.listAll && f.statOK && f.fid.regular:
			// Not in pi's listing, whatever it holds: its identity is
			// enough for the snapshot.
			es[i].fid = f.fid
		default:
			todo = append(todo, i)
		}
	}
	slices.SortStableFunc(todo, func(a, b int) int { return cmp.Compare(files[b].fid.size, files[a].fid.size) })
	ix := &Index{o: o, open: openFile, wmu: newWriteLock()} // a reader only: no database
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Each worker takes the next file itself: a channel would wake a
	// parked worker per file.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := next.Add(1) - 1; k < int64(len(todo)) && ctx.Err() == nil; k = next.Add(1) - 1 {
				i := todo[k]
				es[i] = ix.skim(files[i].path, files[i].listAll)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// skim reads one file for its snapshot entry, as prepare and saveRow
// would make it, without the index's metadata; a file of mapMin bytes or
// more is mapped rather than read.
func (ix *Index) skim(path string, listAll bool) snapEntry {
	return ix.skimFrom(path, listAll, mapMin, mapWindow)
}

// skimFrom is skim mapping the files of at least minMap bytes, window
// bytes at a time.
func (ix *Index) skimFrom(path string, listAll bool, minMap, window int64) snapEntry {
	e := snapEntry{path: path}
	f, err := ix.open(path)
	if err != nil {
		return snapEntry{path: path, bad: true}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return snapEntry{path: path, bad: true}
	}
	fid := idOf(fi)
	if !fid.regular {
		return snapEntry{path: path, fid: fid, bad: true}
	}
	fresh := func() *update {
		return &update{path: path, listAll: listAll, full: true, listOnly: true, fid: fid}
	}
	u := fresh()
	if fid.size < minMap || !ix.foldMapped(f, u, window) {
		if u = fresh(); ix.stream(f, u, 0) != nil {
			return snapEntry{path: path, fid: u.fid, bad: true}
		}
	}
	e.fid = u.fid
	in, listed := listing(path, u.h, u.listBody, time.Unix(0, u.fid.mtimeNs))
	if !listed {
		in = u.h.info
	}
	e.modified = in.Modified
	if listAll && listed {
		e.elem = []byte(infoJSON(in, true))
	}
	return e
}
