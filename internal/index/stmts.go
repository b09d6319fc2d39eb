package index

import (
	"context"
	"database/sql"
)

// stmts are statements of the writer prepared once on its one connection
// (Open): preparing one inside a write transaction would wait for that
// connection, SQLite's parser is a visible cost when thousands of files
// are written, and preparing the branch and run statements at each call
// cost 0.65 s of a cold 2.16 GB index's 27 s of CPU (BenchmarkColdIndex's
// profile). in binds one to a transaction. (The entries rows' multi-row
// inserts are batch.go's.)
type stmts map[string]*sql.Stmt

// writerSQL are the writer's statements of stmts.
var writerSQL = []string{saveRowSQL, usageAddSQL, usageClearSQL, lookupEntrySQL, clearBranchSQL,
	setBranchSQL, nextRowSQL, setNextRowSQL, runLoSQL, runInsSQL, runUpdSQL, modelSQL}

// prepareStmts prepares qs on db.
func prepareStmts(ctx context.Context, db *sql.DB, qs []string) (stmts, error) {
	s := stmts{}
	for _, q := range qs {
		stmt, err := db.PrepareContext(ctx, q)
		if err != nil {
			s.close()
			return nil, wrap("prepare", err)
		}
		s[q] = stmt
	}
	return s, nil
}

// in returns the statement of q in tx; q must be one of the prepared.
func (s stmts) in(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	stmt, ok := s[q]
	if !ok {
		panic("index: statement not prepared: " + q)
	}
	return tx.StmtContext(ctx, stmt)
}

func (s stmts) close() {
	for _, stmt := range s {
		stmt.Close()
	}
}
