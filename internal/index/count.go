package index

import (
	"context"
	"database/sql"
)

// Counts are a query's matches counted apart from its ranked hits, which
// come from the newest matches only: the number of matching entries in
// all, and per session file (by path).
type Counts struct {
	Total  int
	ByPath map[string]int
	// Capped says that counting stopped at CountCap matches: the counts
	// are lower bounds.
	Capped bool
}

// CountCap bounds the matches a count reads: a word found in every entry
// of a large history is counted up to here and said to be "at least".
const CountCap = 100_000

// Count counts the entries that match q, as Search filters them.
func (ix *Index) Count(ctx context.Context, q Query) (Counts, error) {
	out := Counts{ByPath: map[string]int{}}
	if len(parseQuery(q.Text)) == 0 {
		return out, nil
	}
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, wrap("count", err)
	}
	defer tx.Rollback()
	match, f, err := prepareSearch(ctx, tx, q)
	if err != nil || f == nil {
		return out, err
	}
	cond := ""
	if f.cond != "" {
		cond = "AND " + f.cond
	}
	rows, err := tx.QueryContext(ctx, `SELECT f2.path, count(*) FROM (SELECT e.file_id FROM fts
		JOIN entries e ON e.rowid = fts.rowid `+f.join+` WHERE fts MATCH ?1 `+cond+` LIMIT ?2) x
		JOIN files f2 ON f2.id = x.file_id GROUP BY x.file_id`, append([]any{match, CountCap + 1, nil, nil}, f.args...)...)
	if err != nil {
		return out, wrap("count", err)
	}
	defer rows.Close()
	for rows.Next() {
		var path string
		var n int
		if err := rows.Scan(&path, &n); err != nil {
			return out, wrap("count", err)
		}
		out.ByPath[path] += n
		out.Total += n
	}
	if out.Total > CountCap {
		out.Total, out.Capped = CountCap, true
	}
	return out, wrap("count", rows.Err())
}
