package index

import (
	"context"
	"database/sql"
	"strings"
)

// The text pass writes millions of rows, two statements per entry; the
// statement overhead of database/sql and the driver (binding, stepping a
// fresh program) was a visible part of it. Rows go in multi-row INSERTs
// of up to batchRows rows instead, through statements prepared once on the
// writer connection.

// batchRows is the largest number of rows of one INSERT; the remainder
// goes in INSERTs of batchSmall rows, then of one.
const (
	batchRows  = 32
	batchSmall = 8
)

// batchInsert is a multi-row INSERT prepared for 1, batchSmall and
// batchRows rows.
type batchInsert struct {
	cols  int
	stmts map[int]*sql.Stmt
}

// textWriter holds the inserts of the text index, and the text rows of
// an applyAll transaction, held until its end (hold, flush).
type textWriter struct {
	entries, text batchInsert
	holding       bool
	held          []any // rowid, text, ...
	heldBytes     int64
}

// prepareBatch prepares "head VALUES(?,...),..." for each batch size.
func prepareBatch(ctx context.Context, db *sql.DB, head string, cols int) (batchInsert, error) {
	b := batchInsert{cols: cols, stmts: map[int]*sql.Stmt{}}
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	for _, n := range []int{1, batchSmall, batchRows} {
		stmt, err := db.PrepareContext(ctx, head+" VALUES"+strings.TrimSuffix(strings.Repeat(row+",", n), ","))
		if err != nil {
			return b, wrap("prepare", err)
		}
		b.stmts[n] = stmt
	}
	return b, nil
}

// exec inserts the rows whose values are args, cols per row.
func (b batchInsert) exec(ctx context.Context, tx *sql.Tx, args []any) error {
	for len(args) > 0 {
		n := batchRows
		switch rows := len(args) / b.cols; {
		case rows < batchSmall:
			n = 1
		case rows < batchRows:
			n = batchSmall
		}
		if _, err := tx.StmtContext(ctx, b.stmts[n]).ExecContext(ctx, args[:n*b.cols]...); err != nil {
			return err
		}
		args = args[n*b.cols:]
	}
	return nil
}

// prepareText prepares the inserts of the text index on the writer
// connection, once: preparing inside a write transaction would wait for
// the writer's only connection.
func prepareText(ctx context.Context, wdb *sql.DB) (*textWriter, error) {
	var w textWriter
	var err error
	if w.entries, err = prepareBatch(ctx, wdb, `INSERT INTO entries(rowid, file_id, eid, parent, type, role, ts, model, on_branch, bpos, off, len)`, 12); err != nil {
		return nil, err
	}
	if w.text, err = prepareBatch(ctx, wdb, `INSERT INTO fts(rowid, text)`, 2); err != nil {
		return nil, err
	}
	return &w, nil
}

// FTS5 writes the text it holds in memory (up to its hashsize) to disk as
// a new segment whenever a statement that may need to be rolled back on its
// own starts in the same transaction: a multi-row INSERT (into entries or
// into fts), the files row's upsert. A pass that wrote each file's text
// between such statements made a segment of a few rows each time, and FTS5
// spent a third of the cold index merging them (its crisis merges). The
// text rows of an applyAll transaction are therefore held until its end
// and written then, in single-row INSERTs, which do not make FTS5 flush:
// one segment per transaction. heldMax bounds what is held (a transaction
// commits once it holds that much): on a 453 MB corpus (BenchmarkColdIndex)
// 8, 16 and 32 MB cost the same CPU, with peaks of 115-130, 125-134 and
// 176-184 MB of RSS.
const heldMax = 16 << 20

// hold makes insertText hold the rows until flush.
func (w *textWriter) hold() { w.holding = true }

// insertText inserts the text rows args (rowid, text, ...), or holds them.
func (w *textWriter) insertText(ctx context.Context, tx *sql.Tx, args []any) error {
	if !w.holding {
		return w.text.exec(ctx, tx, args)
	}
	for i := 1; i < len(args); i += 2 {
		w.heldBytes += int64(len(args[i].(string)))
	}
	w.held = append(w.held, args...)
	return nil
}

// full reports whether the held rows reached heldMax.
func (w *textWriter) full() bool { return w.heldBytes >= heldMax }

// flush writes the held rows in tx and stops holding; with a nil tx (a
// rollback) it drops them.
func (w *textWriter) flush(ctx context.Context, tx *sql.Tx) error {
	w.holding = false
	if tx == nil {
		w.held, w.heldBytes = nil, 0
		return nil
	}
	return w.writeHeld(ctx, tx)
}

// writeHeld writes the held rows in tx, row by row.
func (w *textWriter) writeHeld(ctx context.Context, tx *sql.Tx) error {
	held := w.held
	w.held, w.heldBytes = nil, 0
	if len(held) == 0 {
		return nil
	}
	stmt := tx.StmtContext(ctx, w.text.stmts[1])
	for i := 0; i < len(held); i += 2 {
		if _, err := stmt.ExecContext(ctx, held[i], held[i+1]); err != nil {
			return wrap("insert text", err)
		}
	}
	return nil
}
