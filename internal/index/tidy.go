package index

import (
	"context"
	"database/sql"
)

// A bulk text pass writes FTS5's segments without merging them
// (bulkFTS), and no longer merges them into one at its end: on 2.16 GB
// that 'optimize' was 2-3 s of the cold index's critical path (issue 24
// item 3; decision 0051). The index is complete and searchable without
// it; a query costs a lookup per segment, so the merge is done later, in
// bounded steps (Tidy) that other writers come in between: serve's
// watcher runs them when it is idle, `piweb index --merge` at once.
//
// The mark is tmeta's key "merge", set by startBulk in the transaction
// that turns FTS5's merging off (a pass cut short by a crash leaves its
// segments marked too): "all" until the first step, which puts every
// segment on one level, "on" while the merge it started goes on. It is
// deleted when FTS5 has nothing left to merge.
const (
	mergeKey   = "merge"
	mergeStart = "all"
	mergeOn    = "on"
)

// mergePages is about the most pages (16 KB, pgsz) one step of the merge
// writes: on the 2.16 GB corpus (~7,700 pages to merge, BenchmarkTidy)
// 1000 took 310-330 ms a step (p50), 250 110-130 ms under a load of 5-9
// (27 steps), the same 2.0 s of CPU in all. FTS5 checks the budget
// between words, so a common word's long list makes one step longer
// whatever the number: the longest was 300-460 ms at that load. A
// variable for tests.
var mergePages = 250

// markMerge records that FTS5's segments wait for a merge.
func markMerge(ctx context.Context, tx *sql.Tx) error {
	return wrap("mark merge", setTmeta(ctx, tx, mergeKey, mergeStart))
}

// mergeState is the mark, "" when nothing waits for a merge.
func mergeState(ctx context.Context, q querier) (string, error) {
	v, err := tmetaValue(ctx, q, mergeKey)
	return v, wrap("merge state", err)
}

// MergePending reports whether the text index's segments wait for a merge
// (Tidy).
func (ix *Index) MergePending(ctx context.Context) (bool, error) {
	var state string
	err := ix.textW.read(func(q querier) error {
		var err error
		state, err = mergeState(ctx, q)
		return err
	})
	return state != "", err
}

// Tidy does one step of the merge a bulk pass left (at most mergePages
// pages), in a transaction of the text file taken as the index's writer:
// a writer that waits (a live session's append) comes in after the step.
// more is whether there is more to do; with nothing marked, and while a
// bulk pass runs (it would be merging what the pass still adds), it does
// nothing.
func (ix *Index) Tidy(ctx context.Context) (more bool, err error) {
	// Serve's watcher asks after every idle rescan: without a mark it
	// takes no writer.
	if pending, err := ix.MergePending(ctx); err != nil || !pending {
		return false, err
	}
	if err := ix.wmu.LockCtx(ctx); err != nil {
		return false, wrap("tidy", err)
	}
	defer ix.wmu.Unlock()
	if ix.bulkText {
		return false, nil
	}
	err = ix.textOnly(ctx, func(tx *sql.Tx) error {
		var err error
		more, err = mergeStep(ctx, tx, mergePages)
		return err
	})
	if ix.tidied != nil {
		ix.tidied()
	}
	return more, err
}

// TidyAll runs Tidy until the merge is done or ctx ends.
func (ix *Index) TidyAll(ctx context.Context) error {
	for {
		more, err := ix.Tidy(ctx)
		if err != nil || !more {
			return err
		}
	}
}

// mergeStep runs FTS5's 'merge' of at most pages pages when the mark says
// so, and clears the mark when FTS5 found nothing to merge (its changes
// grew by less than 2, FTS5's documented test). The first step, of a
// negative size, puts all segments on one level so that they merge into
// one; later ones go on with the merge it started.
func mergeStep(ctx context.Context, tx *sql.Tx, pages int) (bool, error) {
	state, err := mergeState(ctx, tx)
	if err != nil || state == "" {
		return false, err
	}
	n := pages
	if state == mergeStart {
		n = -pages
	}
	var before, after int64
	err = tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before)
	if err == nil {
		_, err = tx.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES('merge', ?)`, n)
	}
	if err == nil {
		err = tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after)
	}
	if err != nil {
		return false, wrap("merge", err)
	}
	if after-before < 2 {
		_, err = tx.ExecContext(ctx, `DELETE FROM tmeta WHERE key = ?`, mergeKey)
		return false, wrap("merge", err)
	}
	if state == mergeStart {
		err = setTmeta(ctx, tx, mergeKey, mergeOn)
	}
	return true, wrap("merge", err)
}
