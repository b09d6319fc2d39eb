package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Counts are a query's matches counted apart from its ranked hits, which
// come from the newest matches only: the number of matching entries in
// all, and per session file (by path).
type Counts struct {
	Total  int
	ByPath map[string]int
	// Capped says that counting stopped at countCap matches: the counts
	// are lower bounds.
	Capped bool
	// Partial says that counting stopped at the search's budget
	// (budget.go): the counts are lower bounds too.
	Partial bool
}

// countCap bounds the matches a count reads, newest first: a word found
// in thousands of entries is counted up to here and said to be "at
// least". Counting is the candidates' search without their text (the
// filter pushed down the same way), so its cost grows with the cap, not
// with how common the word is.
var countCap = 2000

// Count counts the entries that match q, as Search filters them.
func (ix *Index) Count(ctx context.Context, q Query) (Counts, error) {
	out := Counts{ByPath: map[string]int{}}
	if len(parseQuery(q.Text)) == 0 {
		return out, nil
	}
	err := ix.readSearch(ctx, "count", q, func(tx *sql.Tx, match string, f *filter, deadline time.Time) error {
		var err error
		out, err = count(ctx, tx, match, f, nil, deadline)
		return err
	})
	return out, err
}

// count counts the matches of the query, up to countCap, read until the
// deadline; read are matches already read newest first (a search's
// candidates), counted instead when the count's own scan stopped with
// fewer.
func count(ctx context.Context, tx *sql.Tx, match string, f *filter, read []cand, deadline time.Time) (Counts, error) {
	out := Counts{ByPath: map[string]int{}}
	text := f.noText
	f.noText = true
	defer func() { f.noText = text }()
	cands, partial, err := scanUntil(ctx, tx, match, f, countCap+1, deadline)
	if err != nil {
		return out, err
	}
	if partial && len(read) > len(cands) {
		cands = read
	}
	if len(cands) > countCap {
		cands, out.Capped = cands[:countCap], true
	}
	out.Partial = partial
	return out, countFiles(ctx, tx, cands, &out)
}

// countFiles adds up the candidates per file.
func countFiles(ctx context.Context, tx *sql.Tx, cands []cand, out *Counts) error {
	if len(cands) == 0 {
		return nil
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = fmt.Sprint(c.rowid)
	}
	rows, err := tx.QueryContext(ctx, `SELECT f.path, count(*) FROM entries e JOIN files f ON f.id = e.file_id
		WHERE e.rowid IN (`+strings.Join(ids, ",")+`) GROUP BY e.file_id`)
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
