package index

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestFilterExact compares filtered searches with the plain query that
// checks every match (no probe, no ranges), on a generated corpus whose
// files also grew in interleaved appends, so that runs are scattered; with
// the filter's tuning as shipped and shrunk to fit the small corpus.
func TestFilterExact(t *testing.T) {
	ix := filterCorpus(t) // built once: the tuning changes only how Search filters
	for _, tune := range []struct{ rows, min, ratio, ranges int }{{probeRows, probeMin, probeRatio, maxRanges}, {40, 10, 2, 3}, {1, 1, 1, 1}} {
		t.Run(fmt.Sprint(tune), func(t *testing.T) {
			defer func(r, m, q, g int) { probeRows, probeMin, probeRatio, maxRanges = r, m, q, g }(probeRows, probeMin, probeRatio, maxRanges)
			probeRows, probeMin, probeRatio, maxRanges = tune.rows, tune.min, tune.ratio, tune.ranges
			testFilterExact(t, ix)
		})
	}
	t.Run("budget", func(t *testing.T) { testSearchBudget(t, ix) })
	t.Run("count-fallback", func(t *testing.T) { testCountFallback(t, ix) })
	t.Run("tool-roles-without-tools", func(t *testing.T) { testToolRolesWithoutTools(t, ix) })
}

// filterCorpus indexes a generated corpus of 40 files, 12 of which then
// grow by one entry at a time, each in a sync of its own, in three rounds.
func filterCorpus(t *testing.T) *Index {
	dir := genCorpus(t, corpus.Options{Files: 40, Bytes: 8 << 20, Projects: 8, Seed: 3})
	ix := openTest(t, dir)
	syncAll(t, ix)
	files := pisession.SessionFiles(dir)
	for round := range 3 {
		for i, p := range files[:12] {
			s, err := pisession.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprintf("x%d-%d", round, i)
			testkit.AppendFile(t, p, line(id, s.Leaf().ID, "user", "the function late append "+id, round))
			syncAll(t, ix) // one file per sync: its run cannot extend
		}
	}
	return ix
}

func testFilterExact(t *testing.T, ix *Index) {
	var cwd, model string
	var lo, hi int64
	err := ix.db.QueryRow(`SELECT (SELECT cwd FROM files ORDER BY id DESC LIMIT 1), (SELECT model FROM file_models LIMIT 1),
		(SELECT min(ts) FROM entries WHERE ts > 0), (SELECT max(ts) FROM entries)`).Scan(&cwd, &model, &lo, &hi)
	if err != nil {
		t.Fatal(err)
	}
	mid := time.UnixMilli(lo + (hi-lo)/3)
	short := mid.Add(6 * time.Hour)
	now := time.UnixMilli(hi)
	for _, text := range []string{"the", "function", "late", "the function", "conf*", "zq*"} {
		for _, q := range []Query{
			{Text: text, Cwd: cwd}, {Text: text, Model: model}, {Text: text, Model: strings.SplitN(model, "/", 2)[1]},
			{Text: text, From: mid, To: short}, {Text: text, From: short}, {Text: text, To: mid},
			{Text: text, Cwd: cwd, Model: model, From: mid},
			{Text: text, Roles: []string{"user"}}, {Text: text, Branch: Abandoned}, {Text: text, Branch: CurrentBranch},
			{Text: text, Cwd: cwd, Roles: []string{"toolResult"}, Branch: CurrentBranch},
		} {
			q.Now, q.Limit = now, 30
			got := searchOK(t, ix, q)
			if diff := cmp.Diff(plainSearch(t, ix, q), got); diff != "" {
				t.Errorf("%+v (-plain +search):\n%s", q, diff)
			}
		}
	}
}

// plainSearch is Search without probe and ranges: the newest matches
// checked one by one, the model filter read from the files' metadata.
func plainSearch(t *testing.T, ix *Index, q Query) []Hit {
	t.Helper()
	ctx := context.Background()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	expand, _ := expander(ctx, tx)
	match, ok := ftsQuery(q.Text, expand)
	if !ok {
		return nil
	}
	conds, args := []string{"1"}, []any{match}
	if q.Cwd != "" {
		conds, args = append(conds, "f.cwd = ?"), append(args, q.Cwd)
	}
	if q.Model != "" {
		conds = append(conds, `EXISTS (SELECT 1 FROM json_each(f.meta, '$.models') WHERE value = ? OR value LIKE '%/' || ?)`)
		args = append(args, q.Model, q.Model)
	}
	for _, r := range q.Roles { // one role at most in these tests
		conds, args = append(conds, "e.role = ?"), append(args, r)
	}
	if q.Branch != AnyBranch {
		conds, args = append(conds, "e.on_branch = ?"), append(args, q.Branch == CurrentBranch)
	}
	if !q.From.IsZero() {
		conds, args = append(conds, "e.ts >= ?"), append(args, q.From.UnixMilli())
	}
	if !q.To.IsZero() {
		conds, args = append(conds, "e.ts < ?"), append(args, q.To.UnixMilli())
	}
	rows, err := tx.Query(`SELECT fts.rowid, e.ts, e.on_branch, highlight(fts, 0, char(2), char(3)) FROM fts
		JOIN entries e ON e.rowid = fts.rowid JOIN files f ON f.id = e.file_id
		WHERE fts MATCH ? AND `+strings.Join(conds, " AND ")+` ORDER BY fts.rowid DESC LIMIT `+fmt.Sprint(candidates), args...)
	if err != nil {
		t.Fatal(err)
	}
	var cs []cand
	for rows.Next() {
		var c cand
		rows.Scan(&c.rowid, &c.ts, &c.on, &c.marked)
		cs = append(cs, c)
	}
	rows.Close()
	hits, err := hitsOf(ctx, tx, rank(cs, q.Now.UnixMilli(), q.Limit))
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// TestClearText checks that a rewritten or removed file leaves no entry,
// text, run or model behind.
func TestClearText(t *testing.T) {
	dir := t.TempDir()
	p := writeWords(t, dir, "s", "alpha beta", "gamma")
	ix := openTest(t, dir)
	syncAll(t, ix)
	count := func() string {
		var n [4]int
		for i, q := range []string{`SELECT count(*) FROM entries`, `SELECT count(*) FROM fts`, `SELECT count(*) FROM runs`,
			`SELECT count(*) FROM file_models`} {
			if err := ix.db.QueryRow(q).Scan(&n[i]); err != nil {
				t.Fatal(err)
			}
		}
		return fmt.Sprint(n)
	}
	if got := count(); got != "[2 2 1 0]" {
		t.Errorf("after sync: %s", got)
	}
	os.WriteFile(p, []byte(hdr+"\n"+asst+"\n"), 0o644) // rewritten: one assistant entry of model p/m
	syncAll(t, ix)
	if got := count(); got != "[1 1 1 1]" {
		t.Errorf("after rewrite: %s", got)
	}
	os.Remove(p)
	syncAll(t, ix)
	if got := count(); got != "[0 0 0 0]" {
		t.Errorf("after removal: %s", got)
	}
	if hits := hitIDs(t, ix, "alpha"); len(hits) != 0 {
		t.Errorf("alpha still found: %v", hits)
	}
}
