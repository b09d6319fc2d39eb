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
	err := ix.readSearch(ctx, "count", q, func(tx *sql.Tx, match string, f *filter) error {
		return f.count(ctx, tx, match, &out)
	})
	if out.Total > CountCap {
		out.Total, out.Capped = CountCap, true
	}
	return out, err
}

// count adds up the matches that pass the filter, per file.
func (f *filter) count(ctx context.Context, tx *sql.Tx, match string, out *Counts) error {
	cond := ""
	if f.cond != "" {
		cond = "AND " + f.cond
	}
	rows, err := tx.QueryContext(ctx, `SELECT f2.path, count(*) FROM (SELECT e.file_id FROM fts
		JOIN entries e ON e.rowid = fts.rowid `+f.join+` WHERE fts MATCH ?1 `+cond+` LIMIT ?2) x
		JOIN files f2 ON f2.id = x.file_id GROUP BY x.file_id`, append([]any{match, CountCap + 1, nil, nil}, f.args...)...)
	if err != nil {
		return wrap("count", err)
	}
	defer rows.Close()
	for rows.Next() {
		var path string
		var n int
		if err := rows.Scan(&path, &n); err != nil {
			return wrap("count", err)
		}
		out.ByPath[path] += n
		out.Total += n
	}
	return wrap("count", rows.Err())
}
