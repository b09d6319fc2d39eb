package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sync"
	"time"
)

// SyncStats describes one Sync.
type SyncStats struct {
	Files     int           `json:"files"`     // session files found
	Changed   int           `json:"changed"`   // files whose listing was updated
	Removed   int           `json:"removed"`   // rows of vanished files dropped
	Texted    int           `json:"texted"`    // files whose text was brought up to date
	Listing   time.Duration `json:"listingNs"` // time until the listing was current
	Text      time.Duration `json:"textNs"`    // time of the text pass after that
	BytesRead int64         `json:"bytesRead"`
}

// statRow is what the scan compares against the disk.
type statRow struct {
	id         int64
	fid        fileID
	bad        bool // recorded as unreadable: always retried
	textBehind bool
}

// Sync brings the index up to date with the disk: first the listing of
// every session (so that ls is right as early as possible), then, with
// text, the entries and text of search. It never stops on a bad file: the
// file's problem is recorded and the next one is read.
//
// With text, a new file's listing and text come from one read of it
// (oneRead): the cold index reads each byte once.
func (ix *Index) Sync(ctx context.Context, text bool) (SyncStats, error) {
	return ix.sync(ctx, text, text)
}

// sync is Sync; with text but not once, the listing of every file comes
// first and the text pass reads the new files again (Watch: serve's
// listing is whole as early as possible).
func (ix *Index) sync(ctx context.Context, text, once bool) (SyncStats, error) {
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	return ix.syncLocked(ctx, text, once)
}

func (ix *Index) syncLocked(ctx context.Context, text, once bool) (SyncStats, error) {
	rs, _, err := ix.currentRoots(ctx)
	if err != nil {
		return SyncStats{}, err
	}
	files, _ := discover(rs)
	st, err := ix.syncFiles(ctx, files, text, once, nil)
	if err != nil {
		return st, err
	}
	// The sessions just indexed may be of cwds whose project settings name
	// more session dirs: those are indexed now too.
	rs2, _, err := ix.currentRoots(ctx)
	if err != nil || slices.Equal(rs, rs2) {
		return st, err
	}
	files, _ = discover(rs2)
	st2, err := ix.syncFiles(ctx, files, text, once, nil)
	st2.Changed, st2.Texted, st2.BytesRead = st2.Changed+st.Changed, st2.Texted+st.Texted, st2.BytesRead+st.BytesRead
	st2.Listing, st2.Text = st2.Listing+st.Listing, st2.Text+st.Text
	return st2, err
}

// syncFiles brings the given files up to date; known is the stat state of
// the indexed files, nil to read it here. With text and once, new files
// get their text in the read of their listing (oneRead).
func (ix *Index) syncFiles(ctx context.Context, files []found, text, once bool, known map[string]statRow) (SyncStats, error) {
	start, read0 := time.Now(), ix.bytesRead.Load()
	ix.lastRows = map[int64]int64{}
	defer func() { ix.lastRows = nil }()
	var st SyncStats
	st.Files = len(files)
	var err error
	if known == nil {
		if known, err = ix.loadStats(ctx); err != nil {
			return st, err
		}
	}
	same := statAll(files, known, text && once)
	var changed []found
	var isNew []bool
	for i, f := range files {
		_, ok := known[f.path]
		delete(known, f.path)
		if !same[i] {
			changed = append(changed, f)
			isNew = append(isNew, !ok)
		}
	}
	st.Changed, st.Removed = len(changed), len(known)
	if err := ix.removeGone(ctx, known); err != nil {
		return st, err
	}
	order, bulk, err := ix.plan(ctx, changed, isNew, text && once)
	if err != nil {
		return st, err
	}
	err = ix.runEach(ctx, len(changed), false, func(i int, b *budget, emit func(*update)) {
		i = order[i]
		f := changed[i]
		if text && once && isNew[i] && f.statOK && f.fid.size > textPart {
			ix.prepareParts(ctx, f, b, emit)
			return
		}
		var old *fileRow
		var err error
		if !isNew[i] {
			old, err = loadRow(ctx, ix.db, f.path)
		}
		if err != nil {
			emit(&update{path: f.path, listAll: f.listAll, err: err})
			return
		}
		// Known files get their text in the same read; new ones too with
		// once, else the listing first and their text in the text pass.
		emit(ix.prepare(f.path, f.listAll, old, text && (old != nil || once), b))
	})
	st.Listing = time.Since(start)
	if err == nil && text {
		st.Texted, err = ix.syncText(ctx, bulk)
		st.Text = time.Since(start) - st.Listing
	}
	ix.bulkText = false
	if ix.build != nil {
		err = ix.endBuild(ctx, err)
	}
	st.BytesRead = ix.bytesRead.Load() - read0
	return st, err
}

// statAll reports for each file whether it is unchanged since it was
// indexed, with the stat calls spread over a few goroutines; a file scan
// stat'd already is not stat'd again. With statNew, the files not indexed
// yet are stat'd too, for their sizes (plan).
func statAll(files []found, known map[string]statRow, statNew bool) []bool {
	same := make([]bool, len(files))
	const parts = 4
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			for i := p; i < len(files); i += parts {
				r, ok := known[files[i].path]
				if !ok && statNew && !files[i].statOK {
					if fi, err := os.Stat(files[i].path); err == nil {
						files[i].fid, files[i].statOK = idOf(fi), true
					}
				}
				if !ok || r.bad {
					continue
				}
				if files[i].statOK {
					same[i] = r.fid.unchanged(files[i].fid)
					continue
				}
				fi, err := os.Stat(files[i].path)
				same[i] = err == nil && r.fid.unchanged(idOf(fi))
			}
		})
	}
	wg.Wait()
	return same
}

func (ix *Index) loadStats(ctx context.Context) (map[string]statRow, error) {
	rows, err := ix.wdb.QueryContext(ctx, `SELECT `+statCols+` FROM files`)
	if err != nil {
		return nil, wrap("load stats", err)
	}
	defer rows.Close()
	out := map[string]statRow{}
	for rows.Next() {
		p, r, err := scanStat(rows)
		if err != nil {
			return nil, err
		}
		out[p] = r
	}
	return out, wrap("load stats", rows.Err())
}

// statRowOf reads the stat state of one file; ok is false when it is not
// indexed.
func (ix *Index) statRowOf(ctx context.Context, path string) (r statRow, ok bool, err error) {
	_, r, err = scanStat(ix.wdb.QueryRowContext(ctx, `SELECT `+statCols+` FROM files WHERE path = ?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

const statCols = `path, id, dev, ino, size, mtime_ns, error != '', text_offset < offset`

func scanStat(sc interface{ Scan(...any) error }) (string, statRow, error) {
	var r statRow
	var p string
	var dev, ino int64
	err := sc.Scan(&p, &r.id, &dev, &ino, &r.fid.size, &r.fid.mtimeNs, &r.bad, &r.textBehind)
	r.fid.dev, r.fid.ino = uint64(dev), uint64(ino)
	if errors.Is(err, sql.ErrNoRows) {
		return p, r, err
	}
	return p, r, wrap("load stats", err)
}

func (ix *Index) removeGone(ctx context.Context, gone map[string]statRow) error {
	if len(gone) == 0 {
		return nil
	}
	return ix.batch(ctx, func(tx *sql.Tx) error {
		for p, r := range gone {
			ev, err := ix.apply(ctx, tx, &update{path: p, removed: true, old: &fileRow{id: r.id}})
			if err != nil {
				return err
			}
			ix.publish(ev)
		}
		return nil
	})
}

// runEach prepares the updates of n work items on worker goroutines and
// applies them on this one, the only writer, in transactions of a few
// hundred files or a few hundred MB; a work item may make several, in
// order (a big file read in parts). The workers hold at most the bytes of
// a read budget between them (memory.go). With yield, a writer that
// waits for the index (a live session's appended lines, a request's
// change) gets it after the update being written: the caller's updates
// must tolerate writes between them (the text pass's check its offsets).
// Each call has a read budget of its own: a writer let in may run a pass
// too, which must not wait for what this one holds.
func (ix *Index) runEach(ctx context.Context, n int, yield bool, prep func(i int, b *budget, emit func(*update))) error {
	if n == 0 {
		return nil
	}
	workers := ix.o.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make(chan *update, workers)
	work := make(chan int)
	b := newBudget(cmp.Or(ix.readBudget, readBudget))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			// CPU profiles tell the parse, the writer and the text
			// writer apart by this label (idx).
			pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("idx", "parse")))
			emit := func(u *update) { out <- u }
			for i := range work {
				ix.prepSafe(func() { prep(i, b, emit) })
			}
		})
	}
	go func() {
		defer close(work)
		for i := range n {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	var err error
	pprof.Do(ctx, pprof.Labels("idx", "writer"), func(ctx context.Context) { err = ix.applyAll(ctx, out, yield) })
	return err
}

// prepSafe runs one work item's preparation: a panic (a fault of piweb's,
// which no file's content may turn into a dead process) is logged and the
// item left out, to be tried again on the next scan.
func (ix *Index) prepSafe(prep func()) {
	defer func() {
		if v := recover(); v != nil {
			ix.o.Log.Error("index: internal error while reading a file to index", "panic", v, "stack", string(debug.Stack()))
		}
	}()
	prep()
}

// applyAll writes the updates from ch in batches. It drains ch even after
// an error so the workers finish. With yield it commits and lets waiting
// writers in whenever one waits.
func (ix *Index) applyAll(ctx context.Context, ch <-chan *update, yield bool) error {
	var first error
	var tx *sql.Tx
	var pending []Event
	size, count := int64(0), 0
	commit := func() {
		if tx == nil {
			return
		}
		if err := ix.commit(ctx, tx); err != nil && first == nil {
			first = err
		}
		for _, ev := range pending {
			ix.publish(ev)
		}
		tx, pending, size, count = nil, nil, 0, 0
	}
	for u := range ch {
		next, path := u.next, u.path
		if first != nil {
			u.budget.release(u.held)
			u.done()
			reply(next, nil)
			continue
		}
		if tx == nil {
			var err error
			if tx, err = ix.wdb.BeginTx(ctx, nil); err != nil {
				first = wrap("begin", err)
				u.budget.release(u.held)
				u.done()
				reply(next, nil)
				continue
			}
		}
		ev, err := ix.applySafe(ctx, tx, u)
		u.budget.release(u.held)
		size += u.offset - u.textFrom
		u.done()
		if err != nil {
			ix.rollback(tx)
			tx, first = nil, err
			reply(next, nil)
			continue
		}
		if next != nil {
			row, _ := loadRow(ctx, tx, path)
			reply(next, row)
		}
		if ev.Path != "" {
			pending = append(pending, ev)
		}
		if count++; count >= 500 || size >= 256<<20 || ix.textW.full() {
			commit()
		}
		if yield {
			ix.letWritersIn(commit)
		}
	}
	commit()
	return first
}

// reply hands an applied update's row to the worker waiting for it
// (update.next), if one does.
func reply(next chan *fileRow, row *fileRow) {
	if next != nil {
		next <- row
	}
}

// letWritersIn commits the open transaction and lets the writers waiting
// for the index take it, when one waits; the caller holds the writer.
func (ix *Index) letWritersIn(commit func()) {
	if ix.afterPart != nil {
		ix.afterPart()
	}
	if ix.wmu.Contended() {
		commit()
		ix.wmu.Yield()
	}
}

// batch runs fn in one write transaction.
func (ix *Index) batch(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := ix.wdb.BeginTx(ctx, nil)
	if err != nil {
		return wrap("begin", err)
	}
	if err := fn(tx); err != nil {
		ix.rollback(tx)
		return err
	}
	return ix.commit(ctx, tx)
}

// commit commits the text file's transaction, then tx: a crash between
// the two leaves text rows above the entries rows, which repairText
// deletes (textdb.go).
func (ix *Index) commit(ctx context.Context, tx *sql.Tx) error {
	if err := ix.commitText(); err != nil {
		tx.Rollback()
		return err
	}
	if ix.crashAfterText != nil && ix.crashAfterText() {
		tx.Rollback()
		return errCrashed
	}
	err := tx.Commit()
	if err != nil && ix.build == nil {
		if rerr := repairText(ctx, ix.wdb, ix.textW.tdb); rerr != nil {
			ix.o.Log.Error("index: text rows of a failed commit left", "err", rerr)
		}
	}
	return wrap("commit", err)
}

// commitText commits the text file's transaction. In a cold build
// (build.go) nothing is durable before its end, so the commit is not
// waited for: its error, if any, comes with a later commit's (and a
// failed build is built again, not repaired).
func (ix *Index) commitText() error {
	if ix.build != nil {
		ix.textW.commitLater()
		return nil
	}
	return ix.textW.commit()
}

// errCrashed is a commit that crashAfterText stopped.
var errCrashed = errors.New("index: crashed between the commits (test)")

// rollback drops tx and the text file's transaction.
func (ix *Index) rollback(tx *sql.Tx) {
	ix.textW.rollback()
	tx.Rollback()
}
