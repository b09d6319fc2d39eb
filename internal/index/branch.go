package index

import (
	"context"
	"database/sql"

	"piweb/internal/session"
)

// Tail plans the context at the leaf of the indexed file at path from
// what the index keeps of its branch (session.PlanTail): the entries'
// rows and their lines' offsets, so that a page of a huge session reads
// only that page's lines. The file is opened and checked against its row
// (same inode, size and mtime, every line indexed, no defect): the plan
// is of the file as it was indexed, and its reads go through the open
// file, so an append meanwhile changes nothing it reads. ok is false when
// the index cannot answer (the caller parses the file); done closes the
// file once the pages are built.
func (ix *Index) Tail(ctx context.Context, path string) (t *session.Tail, done func(), ok bool, err error) {
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
	if t, ok = session.PlanTail(header, rows, read); !ok {
		f.Close()
		return nil, nil, false, nil
	}
	return t, func() { f.Close() }, true, nil
}

// branchOf returns the header line and branch rows of the file at path
// when its row says it is indexed as fid is, whole and without defects;
// nil rows otherwise.
func (ix *Index) branchOf(ctx context.Context, path string, fid fileID, f readFile) ([]byte, []session.BranchRow, error) {
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, wrap("branch", err)
	}
	defer tx.Rollback()
	r, err := loadRow(ctx, tx, path)
	if err != nil || r == nil || !indexedWhole(r, fid) {
		return nil, nil, err
	}
	rows, err := branchRows(ctx, tx, r.id)
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
		if p.Kind != string(session.CRLF) {
			return false
		}
	}
	return true
}

// branchRows reads the rows of the file's current branch, root first;
// nil when their positions are not 0, 1, 2...
func branchRows(ctx context.Context, tx *sql.Tx, fileID int64) ([]session.BranchRow, error) {
	q, err := tx.QueryContext(ctx, `SELECT eid, parent, type, role, off, len, bpos FROM entries
		WHERE file_id = ? AND on_branch = 1 ORDER BY bpos`, fileID)
	if err != nil {
		return nil, wrap("branch", err)
	}
	defer q.Close()
	var rows []session.BranchRow
	for q.Next() {
		var r session.BranchRow
		var pos int
		if err := q.Scan(&r.ID, &r.ParentID, &r.Type, &r.Role, &r.Off, &r.Len, &pos); err != nil {
			return nil, wrap("branch", err)
		}
		if pos != len(rows) {
			return nil, nil
		}
		rows = append(rows, r)
	}
	return rows, wrap("branch", q.Err())
}
