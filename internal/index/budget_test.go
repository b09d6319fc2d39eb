package index

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testSearchBudget (run by TestFilterExact, on its corpus): a search whose
// budget ends answers partial, without an error, from the matches read
// (none here: the budget ends at once; a count falls back on the search's
// candidates); within its budget, Answer is Search and Count in one.
func testSearchBudget(t *testing.T, ix *Index) {
	ctx := context.Background()
	defer func(d time.Duration, from int) { ix.o.SearchBudget, ix.o.BudgetFrom = d, from }(ix.o.SearchBudget, ix.o.BudgetFrom)
	ix.o.BudgetFrom = -1
	for _, q := range []Query{{Text: "the"}, {Text: "the", Roles: []string{"user"}, Branch: Abandoned}, {Text: "conf*", Branch: Abandoned}} {
		q.Limit, q.Now = 30, time.UnixMilli(1<<40)
		ix.o.SearchBudget = time.Hour
		a, err := ix.Answer(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		hits := searchOK(t, ix, q)
		counts, err := ix.Count(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Answer{Hits: hits, Counts: counts}, a); diff != "" {
			t.Errorf("%+v: Answer (-Search and Count +Answer):\n%s", q, diff)
		}
		ix.o.SearchBudget = time.Nanosecond
		a, err = ix.Answer(ctx, q)
		if err != nil || !a.Partial || !a.Counts.Partial {
			t.Errorf("%+v, budget 1 ns: partial %v, counts partial %v, error %v; want partial, no error", q, a.Partial, a.Counts.Partial, err)
		}
		if _, err := ix.Search(ctx, q); err != nil {
			t.Errorf("%+v, budget 1 ns: Search: %v", q, err)
		}
	}
}

// testToolRolesWithoutTools (on TestFilterExact's corpus, indexed without
// tool output): a search for tool output alone answers at once, whole and
// empty, even with no budget left: its text is not in the index, so no
// match is read for nothing.
func testToolRolesWithoutTools(t *testing.T, ix *Index) {
	if ix.Tools() {
		t.Skip("the corpus index holds tool output")
	}
	defer func(d time.Duration, from int) { ix.o.SearchBudget, ix.o.BudgetFrom = d, from }(ix.o.SearchBudget, ix.o.BudgetFrom)
	ix.o.SearchBudget, ix.o.BudgetFrom = time.Nanosecond, -1
	a, err := ix.Answer(context.Background(), Query{Text: "the", Roles: []string{"toolResult", "bashExecution"}, Limit: 30})
	if err != nil || a.Partial || len(a.Hits) != 0 || a.Counts.Total != 0 {
		t.Errorf("tool output on an index without it: %d hits, total %d, partial %v, error %v; want none at once",
			len(a.Hits), a.Counts.Total, a.Partial, err)
	}
}

// testCountFallback: a count whose scan stops at once counts the search's
// candidates it is given, as lower bounds.
func testCountFallback(t *testing.T, ix *Index) {
	ctx := context.Background()
	err := ix.readSearch(ctx, "test", Query{Text: "the"}, func(tx *sql.Tx, match string, f *filter, _ time.Time) error {
		s, err := rankedSearch(ctx, tx, match, f, Query{Text: "the", Limit: 5}, time.Now().Add(time.Hour))
		if err != nil || len(s.cands) == 0 || s.partial {
			t.Fatalf("search: %d candidates, partial %v, error %v", len(s.cands), s.partial, err)
		}
		c, err := count(ctx, tx, match, f, s.cands, time.Now())
		if err != nil || !c.Partial || c.Total != len(s.cands) {
			t.Errorf("count at its deadline: total %d partial %v error %v; want %d, partial", c.Total, c.Partial, err, len(s.cands))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
