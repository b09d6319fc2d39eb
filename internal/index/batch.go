package index

import (
	"context"
	"database/sql"
	"strings"
)

// The text pass writes millions of entries rows; the statement overhead
// of database/sql and the driver (binding, stepping a fresh program) was
// a visible part of it. Rows go in multi-row INSERTs of up to batchRows
// rows instead, through statements prepared once on the writer
// connection. (Text rows go one a statement: textWriter.insertText.)

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

// prepareEntries prepares the inserts of entries rows on the writer
// connection, once: preparing inside a write transaction would wait for
// the writer's only connection.
func prepareEntries(ctx context.Context, wdb *sql.DB) (batchInsert, error) {
	return prepareBatch(ctx, wdb, `INSERT INTO entries(rowid, file_id, eid, parent, type, role, ts, model, on_branch, bpos, off, len)`, 12)
}
