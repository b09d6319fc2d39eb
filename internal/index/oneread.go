package index

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
)

// A cold Sync with text reads each byte once (issue 24 item 3): a new
// file of at most textPart bytes is read whole once, and its listing,
// metadata, entries and text come from that one parse, in the listing
// pass's transactions. (Before, the listing pass read every file and the
// text pass read it again: 2x the corpus.) A bigger file is read in parts
// of about textPart bytes, each indexed as if the file ended there, as
// an appended file is (prepareParts). Watch keeps the two passes, so that
// serve's listing is whole before any text is indexed.
//
// The text pass indexes sessions oldest first so that FTS rowids follow
// time (search's candidates are the newest matches by rowid); plan gives
// the one-read pass the same order from the file names, which pi writes
// as <creation time>_<id>.jsonl.

// plan orders the changed files for the listing pass, and starts a bulk
// text pass (bulkBytes) when the new files' text is read in it (once) and
// is big enough. It returns the order and whether it started one.
func (ix *Index) plan(ctx context.Context, changed []found, isNew []bool, once bool) ([]int, bool, error) {
	order := make([]int, len(changed))
	var backlog int64
	for i, f := range changed {
		order[i] = i
		if isNew[i] && f.statOK {
			backlog += f.fid.size
		}
	}
	if !once {
		return order, false, nil
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return strings.Compare(filepath.Base(changed[a].path), filepath.Base(changed[b].path))
	})
	if backlog < bulkBytes {
		return order, false, nil
	}
	if err := ix.startBulk(ctx); err != nil {
		return nil, false, err
	}
	ix.bulkText = true
	empty, err := ix.dropBranchIndex(ctx)
	if err == nil && empty {
		ix.build = ix.startBuild(ctx)
	}
	return order, true, err
}

// dropBranchIndex drops entries_branch for a bulk pass into an index
// without entries: the pass's inserts then maintain two indexes instead of
// three (writer CPU -12% on 453 MB, BenchmarkColdIndex), and finishBulk
// creates it in one sorted pass, while the text writer lists the words.
// Until then a branch is found through entries_id, slower but the same
// rows.
// It reports whether the index had no entries.
func (ix *Index) dropBranchIndex(ctx context.Context) (empty bool, err error) {
	err = ix.batch(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT NOT EXISTS(SELECT 1 FROM entries)`).Scan(&empty); err != nil || !empty {
			return wrap("drop index", err)
		}
		_, err := tx.ExecContext(ctx, `DROP INDEX IF EXISTS entries_branch`)
		return wrap("drop index", err)
	})
	return empty, err
}

// prepareParts indexes a new file bigger than a text part in parts of
// about textPart bytes of whole lines, each an update that takes the file
// to end at the part's end: the first reads it as a new file, the next
// ones as appended to the row the one before left, listing and text from
// the one read of the part. Each waits for the one before to be applied
// (update.next). A file cut short by a crash meanwhile is taken up as a
// grown one by the next sync, and one rewritten between two parts is
// left as far as it was indexed, for the next sync to read again. The bytes a part read after its last line
// go on to the next (update.carry), so each byte is read once, but for
// the header line and the 64 bytes before the part's start, which each
// part checks as an append's are, and the bytes of a line longer than a
// part after the part, which are read once to find the line's end (as
// the listing's stream does), then with the line.
func (ix *Index) prepareParts(ctx context.Context, f found, b *budget, emit func(*update)) {
	var old *fileRow
	var carry []byte
	cut := min(textPart, f.fid.size)
	for ctx.Err() == nil {
		next := make(chan *fileRow, 1)
		u := ix.prepareUpdate(&update{path: f.path, listAll: f.listAll, old: old, budget: b, tools: ix.o.Tools,
			cut: cut, part: true, next: next, carry: carry}, true)
		start, stop := u.textFrom, u.err != nil || u.skip || u.cut == 0
		carry = u.carry
		emit(u)
		row := <-next
		if stop || row == nil || row.err != "" {
			return
		}
		old = row
		if cut = max(row.offset+textPart, cut+1); row.offset == start {
			// No whole line in the part: the next one ends with the line.
			if cut, stop = ix.lineEndAt(f, cut-1); stop {
				return
			}
		}
	}
}

// lineEndAt is lineEnd in the file f from offset from.
func (ix *Index) lineEndAt(f found, from int64) (int64, bool) {
	r, err := ix.open(f.path)
	if err != nil {
		return 0, true
	}
	defer r.Close()
	fi, err := r.Stat()
	if err != nil {
		return 0, true
	}
	end, err := ix.lineEnd(r, from, fi.Size())
	return end, err != nil
}
