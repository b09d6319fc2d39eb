package index

import (
	"context"
	"database/sql"
	"time"
)

// A search's work is bounded whatever the corpus (issue 21): the ranked
// hits come from the newest candidates and the count stops at countCap,
// but a filter that few matches pass (role:tool over an index of few tool
// outputs, an abandoned branch) makes a scan read every match of the words
// to find them, and the matches of a one-letter or common word grow with
// the corpus. So a search (its ranked hits and its count, or either
// alone) runs under a deadline, Options.SearchBudget; when it ends, SQLite interrupts
// the statement (the driver checks every 1,000 steps) and the search
// answers from the matches read so far, newest first, marked partial: the
// hits are the best of those, the counts lower bounds. A deadline bounds
// the CPU as well, since a scan runs on one thread. That holds for FTS5's
// own merge of a prefix with more than maxExpand completions too: it runs
// inside one step of the statement, but reads its pages through SQLite,
// which sees the interrupt (BenchmarkSearchPrefixMerge, decision 0036);
// such an answer names the prefix (Answer.Wide). An index of at most
// Options.BudgetFrom entries is searched whole: its worst scan takes a few
// milliseconds, and a deadline there would only make its answers depend
// on the machine's load.

// defaultBudget is Options.SearchBudget's default: twice issue 26's 50 ms
// target for a whole filtered search, which the scans of an ordinary
// search stay well within (bench/NOTES.md).
const defaultBudget = 100 * time.Millisecond

// defaultBudgetFrom is Options.BudgetFrom's default.
const defaultBudgetFrom = 20000

// deadline is when the scans of a search that starts now stop: none (the
// zero time) in an index of at most Options.BudgetFrom entries.
func (ix *Index) deadline(ctx context.Context, tx *sql.Tx) (time.Time, error) {
	if ix.o.BudgetFrom < 0 {
		return time.Now().Add(ix.o.SearchBudget), nil
	}
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT ifnull(max(rowid), 0) FROM entries`).Scan(&n); err != nil {
		return time.Time{}, wrap("search", err)
	}
	if n <= int64(ix.o.BudgetFrom) {
		return time.Time{}, nil
	}
	return time.Now().Add(ix.o.SearchBudget), nil
}

// scanUntil returns up to n of the newest candidates of the query, stopping at
// the deadline (none if zero): partial says it did.
func scanUntil(ctx context.Context, tx *sql.Tx, match string, f *filter, n int, deadline time.Time) (cs []cand, partial bool, err error) {
	if deadline.IsZero() {
		cs, err = f.candidates(ctx, tx, match, n)
		return cs, false, err
	}
	bctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	cs, err = f.candidates(bctx, tx, match, n)
	if err != nil && bctx.Err() != nil && ctx.Err() == nil {
		return cs, true, nil
	}
	return cs, false, err
}

// Answer is a search's ranked hits and its counts, read at once.
type Answer struct {
	Hits   []Hit
	Counts Counts
	// Partial says that a scan stopped at the budget: the hits are the
	// best of the matches read, the counts lower bounds.
	Partial bool
	// Wide are the prefixes of a partial answer's query (as typed, with
	// their *) that stand for more than maxExpand words: FTS5 merges
	// their words' matches before it returns a row, which a one-letter
	// prefix of a big index does not finish within the budget.
	Wide []string
}

// Answer runs a query's search and count in one read transaction, both
// scans within one budget.
func (ix *Index) Answer(ctx context.Context, q Query) (Answer, error) {
	out := Answer{Counts: Counts{ByPath: map[string]int{}}}
	if len(parseQuery(q.Text)) == 0 {
		return out, nil
	}
	err := ix.readSearch(ctx, "search", q, func(tx *sql.Tx, match string, f *filter, deadline time.Time) error {
		s, err := rankedSearch(ctx, tx, match, f, q, deadline)
		if err != nil {
			return err
		}
		out.Hits = s.hits
		out.Counts, err = count(ctx, tx, match, f, s.cands, deadline)
		out.Partial = s.partial || out.Counts.Partial
		if out.Partial && err == nil {
			out.Wide, err = widePrefixes(ctx, tx, q.Text)
		}
		return err
	})
	return out, err
}
