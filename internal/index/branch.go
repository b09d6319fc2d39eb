package index

import (
	"context"
	"database/sql"
	"slices"

	"piweb/pisession"
)

// Tail plans the context at the leaf of the indexed file at path from
// what the index keeps of its branch (pisession.PlanTail): the entries'
// rows and their lines' offsets, so that a page of a huge session reads
// only that page's lines. The file is opened and checked against its row
// (same inode, size and mtime, every line indexed, no defect): the plan
// is of the file as it was indexed, and its reads go through the open
// file, so an append meanwhile changes nothing it reads. ok is false when
// the index cannot answer (the caller parses the file); done closes the
// file once the pages are built.
func (ix *Index) Tail(ctx context.Context, path string) (t *pisession.Tail, done func(), ok bool, err error) {
	f, err := ix.open(path)
	if err != nil {
		return nil, nil, false, nil // the parse reports it
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, false, nil
	}
	header, rows, err := ix.branchOf(ctx, path, idOf(fi), f)
	if err != nil || rows == nil {
		f.Close()
		return nil, nil, false, err
	}
	read := func(off, n int64) ([]byte, error) { return ix.readAt(f, off, off+n) }
	if t, ok = pisession.PlanTail(header, rows, read); !ok {
		f.Close()
		return nil, nil, false, nil
	}
	return t, func() { f.Close() }, true, nil
}

// branchOf returns the header line and branch rows of the file at path
// when its row says it is indexed as fid is, whole and without defects;
// nil rows otherwise.
func (ix *Index) branchOf(ctx context.Context, path string, fid fileID, f readFile) ([]byte, []pisession.BranchRow, error) {
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, wrap("branch", err)
	}
	defer tx.Rollback()
	r, err := loadRow(ctx, tx, path)
	if err != nil || r == nil || !indexedWhole(r, fid) {
		return nil, nil, err
	}
	rows, err := branchRows(ctx, tx, r.id, func(off, n int64) ([]byte, error) { return ix.readAt(f, off, off+n) })
	if err != nil || rows == nil {
		return nil, nil, err
	}
	header, err := ix.readAt(f, r.hdrOff, r.hdrOff+r.hdrLen)
	if err != nil {
		return nil, nil, nil
	}
	return header, rows, nil
}

// indexedWhole reports whether r is the file fid, every line of it
// indexed with its text, and nothing wrong with it that a parse would
// treat differently from its rows.
func indexedWhole(r *fileRow, fid fileID) bool {
	if r.err != "" || !r.fid.unchanged(fid) || r.offset != fid.size || r.textOffset != r.offset || r.hdrLen == 0 {
		return false
	}
	for _, p := range r.problems {
		if p.Kind != string(pisession.CRLF) {
			return false
		}
	}
	return true
}

// markTypes are the entry types every one of which on the branch Tail
// reads the row of (entries_marks): they decide the context's start, its
// model and thinking level, or refuse it.
const markTypes = `('compaction', 'thinking_level_change', 'model_change', 'context_edit')`

const (
	branchCols = `SELECT eid, parent, type, role, off, len, bpos FROM entries WHERE file_id = ? AND on_branch = 1`
	// markCols is branchCols through entries_marks, which SQLite's planner
	// (no statistics) would not pick over entries_branch.
	markCols = `SELECT eid, parent, type, role, off, len, bpos FROM entries INDEXED BY entries_marks
		WHERE file_id = ? AND on_branch = 1`
)

// branchRows reads the rows of the file's current branch that its
// context needs (pisession.PlanTail): every row from the context's first
// entry to the leaf, and before it the marks and the last assistant
// message. nil when the rows are not a branch (positions 0...leaf).
func branchRows(ctx context.Context, tx *sql.Tx, fileID int64, read pisession.ReadLine) ([]pisession.BranchRow, error) {
	marks, err := queryRows(ctx, tx, markCols+` AND type IN `+markTypes+` ORDER BY bpos`, fileID)
	if err != nil {
		return nil, err
	}
	asst, err := queryRows(ctx, tx, branchCols+` AND type = 'message' AND role = 'assistant' ORDER BY bpos DESC LIMIT 1`, fileID)
	if err != nil {
		return nil, err
	}
	from, ok, err := contextStart(ctx, tx, fileID, marks, read)
	if err != nil || !ok {
		return nil, err
	}
	suffix, err := queryRows(ctx, tx, branchCols+` AND bpos >= ? ORDER BY bpos`, fileID, from)
	if err != nil || len(suffix) == 0 || suffix[0].Pos != from {
		return nil, err
	}
	var rows []pisession.BranchRow
	for _, r := range append(marks, asst...) {
		if r.Pos < from {
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b pisession.BranchRow) int { return a.Pos - b.Pos })
	return append(rows, suffix...), nil
}

// contextStart is the branch position of the context's first entry: the
// last compaction's first kept entry (the first on the branch before it
// with that id), else the compaction, else the root. ok is false when the
// compaction's id is not unique on the branch (pi cuts at its first) or
// its line cannot be read.
func contextStart(ctx context.Context, tx *sql.Tx, fileID int64, marks []pisession.BranchRow, read pisession.ReadLine) (int, bool, error) {
	k := -1
	for i, r := range marks {
		if r.Type == "compaction" {
			k = i
		}
	}
	if k < 0 {
		return 0, true, nil
	}
	comp := marks[k]
	var dups int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM entries INDEXED BY entries_id WHERE file_id = ? AND eid = ? AND on_branch = 1`,
		fileID, comp.ID).Scan(&dups); err != nil || dups != 1 {
		return 0, false, wrap("branch", err)
	}
	raw, err := read(comp.Off, comp.Len)
	if err != nil {
		return 0, false, nil
	}
	id, ok := pisession.FirstKeptID(raw)
	if !ok {
		return comp.Pos, true, nil
	}
	var pos sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(bpos) FROM entries INDEXED BY entries_id
		WHERE file_id = ? AND eid = ? AND on_branch = 1 AND bpos < ?`,
		fileID, id, comp.Pos).Scan(&pos); err != nil {
		return 0, false, wrap("branch", err)
	}
	if !pos.Valid {
		return comp.Pos, true, nil
	}
	return int(pos.Int64), true, nil
}

// queryRows runs a query of branchCols.
func queryRows(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]pisession.BranchRow, error) {
	q, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap("branch", err)
	}
	defer q.Close()
	var rows []pisession.BranchRow
	for q.Next() {
		var r pisession.BranchRow
		if err := q.Scan(&r.ID, &r.ParentID, &r.Type, &r.Role, &r.Off, &r.Len, &r.Pos); err != nil {
			return nil, wrap("branch", err)
		}
		rows = append(rows, r)
	}
	return rows, wrap("branch", q.Err())
}
