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
// text pass read it again: 2x the corpus.) A bigger file is still listed
// by streaming and its text read in parts by the text pass, which lets
// other writers in between them. Watch keeps the two passes, so that
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
		if isNew[i] && f.statOK && f.fid.size <= textPart {
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
	if err := ix.batch(ctx, func(tx *sql.Tx) error { return startBulk(ctx, tx) }); err != nil {
		return nil, false, err
	}
	ix.bulkText = true
	return order, true, nil
}
