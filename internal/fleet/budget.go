package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"piweb/internal/apitype"
)

// A fleet search has the local search's contract (decision 0031, 0036):
// it runs under a time budget, and when the budget ends it answers from
// the newest matches it could read, marked partial, its counts lower
// bounds. The whole search gets three quarters of the budget (the
// statement's statement_timeout, so PostgreSQL stops its work too, not
// only our wait); if it does not finish, the same search over the newest
// recentWindow entries (its time filter raised to theirs) gets the rest;
// if that does not finish either, the answer is partial with no hits.

// defaultBudget is a fleet search's budget, the local search's default.
const defaultBudget = 100 * time.Millisecond

// recentWindow is how many of the newest entries a search that ran out
// of its budget reads again.
const recentWindow = 20000

// wholeSearchSQL is the statement of a search over every entry: searchSQL;
// the tests make it outlast a budget (testFleetBudget).
var wholeSearchSQL = searchSQL

// budgeted runs searchSQL with args within the reader's budget.
func (r *Reader) budgeted(ctx context.Context, args []any) (apitype.Search, matchCounts, bool, error) {
	whole := r.budget * 3 / 4
	out, counts, _, err := r.searchWithin(ctx, whole, args, -1)
	if !timedOut(ctx, err) {
		return out, counts, false, err
	}
	out, counts, narrowed, err := r.searchWithin(ctx, r.budget-whole, args, r.window)
	if timedOut(ctx, err) {
		return apitype.Search{Hits: []apitype.Hit{}}, matchCounts{bySession: map[[2]string]int{}}, true, nil
	}
	return out, counts, narrowed, err
}

// searchWithin runs searchSQL within d (PostgreSQL's statement_timeout),
// over the newest window entries only when window >= 0 (narrowed says
// that there were more).
func (r *Reader) searchWithin(ctx context.Context, d time.Duration, args []any, window int) (out apitype.Search, counts matchCounts, narrowed bool, err error) {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return out, counts, narrowed, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only: nothing to keep
	ms := max(1, d.Milliseconds())                // 0 would be no timeout
	if _, err := tx.Exec(ctx, `SELECT set_config('statement_timeout', $1, true)`, fmt.Sprintf("%dms", ms)); err != nil {
		return out, counts, narrowed, err
	}
	stmt := wholeSearchSQL
	if window >= 0 {
		stmt = searchSQL
		if args, narrowed, err = newestOnly(ctx, tx, args, window); err != nil {
			return out, counts, narrowed, err
		}
	}
	rows, err := tx.Query(ctx, stmt, args...)
	if err != nil {
		return out, counts, narrowed, err
	}
	out, counts, err = scanHits(rows)
	return out, counts, narrowed, err
}

// newestOnly returns args with the time filter (filterSQL's $6) raised to
// the time of the window-th newest entry, if there are more (narrowed).
func newestOnly(ctx context.Context, tx pgx.Tx, args []any, window int) (_ []any, narrowed bool, err error) {
	var ts int64
	err = tx.QueryRow(ctx, `SELECT ts FROM fleet.entries WHERE ts IS NOT NULL ORDER BY ts DESC NULLS LAST OFFSET $1 LIMIT 1`, window).Scan(&ts)
	if errors.Is(err, pgx.ErrNoRows) {
		return args, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	args = append([]any(nil), args...)
	if from, ok := args[5].(int64); !ok || from < ts {
		args[5] = ts
	}
	return args, true, nil
}

// timedOut says that err is a statement stopped by its statement_timeout
// (not the caller's ctx ending).
func timedOut(ctx context.Context, err error) bool {
	var pg *pgconn.PgError
	return ctx.Err() == nil && errors.As(err, &pg) && pg.Code == "57014"
}
