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

// skimAll fills the entries of the stale paths (diffSnapshot), reading
// the files on GOMAXPROCS goroutines, biggest first, a mapped file in
// parts that any worker takes (mapped.go), so that a few large files do
// not end the pass on one core.
func skimAll(ctx context.Context, o Options, files []found, es []snapEntry, stale []string) error {
	ix := &Index{o: o, open: openFile, wmu: newWriteLock()} // a reader only: no database
	items := skimItems(ix, files, es, stale)
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Each worker takes the next item itself: a channel would wake a
	// parked worker per item.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := next.Add(1) - 1; k < int64(len(items)) && ctx.Err() == nil; k = next.Add(1) - 1 {
				it := items[k]
				if it.s == nil {
					es[it.i] = ix.skim(files[it.i].path, files[it.i].listAll)
				} else if e, done := it.s.scan(it.part); done {
					es[it.i] = e
				}
			}
		})
	}
	wg.Wait()
	for _, it := range items {
		if it.s != nil && it.part == 0 && it.s.left.Load() > 0 && it.s.owned {
			it.s.f.Close() // cancelled before its last part
		}
	}
	return ctx.Err()
}

// skimItem is a file to read (s nil) or a part of a mapped file.
type skimItem struct {
	i    int // in files
	s    *split
	part int
}

// skimItems are the reads and parts that fill the entries of the stale
// paths, biggest files first.
func skimItems(ix *Index, files []found, es []snapEntry, stale []string) []skimItem {
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
	items := make([]skimItem, 0, len(todo))
	for _, i := range todo {
		f := files[i]
		if !f.statOK || !f.fid.regular || f.fid.size < mapMin {
			items = append(items, skimItem{i: i})
			continue
		}
		s := ix.newSplit(f.path, f.listAll, f.fid.size, mapPart)
		for k := range s.parts {
			items = append(items, skimItem{i: i, s: s, part: k})
		}
	}
	return items
}

// skim reads one file for its snapshot entry, as prepare and saveRow
// would make it, without the index's metadata; a file of mapMin bytes or
// more is mapped rather than read.
func (ix *Index) skim(path string, listAll bool) snapEntry {
	return ix.skimFrom(path, listAll, mapMin, mapPart)
}

// skimFrom is skim mapping the files of at least minMap bytes, in parts
// of part bytes.
func (ix *Index) skimFrom(path string, listAll bool, minMap, part int64) snapEntry {
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
	if of, ok := f.(*os.File); ok && fid.size >= minMap {
		s := ix.newSplit(path, listAll, fid.size, part)
		s.use(of, fid)
		return s.scanAll()
	}
	u := &update{path: path, listAll: listAll, full: true, listOnly: true, fid: fid}
	if ix.stream(f, u, 0) != nil {
		return snapEntry{path: path, fid: u.fid, bad: true}
	}
	return entryOf(u)
}

// entryOf is the snapshot entry of a file folded whole into u.
func entryOf(u *update) snapEntry {
	e := snapEntry{path: u.path, fid: u.fid}
	in, listed := listing(u.path, u.h, u.listBody, time.Unix(0, u.fid.mtimeNs))
	if !listed {
		in = u.h.info
	}
	e.modified = in.Modified
	if u.listAll && listed {
		e.elem = []byte(infoJSON(in, true))
	}
	return e
}
