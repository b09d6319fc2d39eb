package index

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A filter keeps the candidates of a search to a project, a model and a
// time range. Checking the newest matches one by one is cheap when many
// pass, and costs as much as reading every match of a common word when
// few do (a small project, an old week). So a search first checks the
// newest probeRows matches; when they hold too few candidates, the filter
// is pushed down into FTS5 as rowid ranges: the runs table records, for
// each batch of entries written for a file, their rowid range and time
// range (runs.go). The runs of the files that pass the project and model
// filters, and that overlap the time range, become the ranges FTS5
// searches, newest first, seeking to each instead of walking all matches.
// Runs close to each other are searched as one range (at most maxRanges),
// and every match is still checked against the filter, so the result is
// exact. A range query costs a seek per word (about 0.1 ms for the OR of a
// prefix's completions), much less than reading the other files' matches
// between two runs, so runs are merged only across gaps under minGap rows
// or beyond maxRanges (issue 26: a project's count over 32 merged ranges
// cost 25 to 39 ms, over its 94 runs 7 to 17).

// The filter's tuning (variables for tests): probeRows is how many of the
// newest matches are checked one by one before the filter is pushed down;
// the probe gives up after probeMin matches when fewer than one in
// probeRatio passed. maxRanges bounds the FTS5 queries of one search, and
// runs less than minGap rows apart are searched as one range.
var (
	probeRows        = 1000
	probeMin         = 200
	probeRatio       = 8
	maxRanges        = 256
	minGap     int64 = 256
)

// rowRange is an inclusive range of entry rowids.
type rowRange struct{ lo, hi int64 }

// filter is a query's filter: cond is its SQL condition on e (entries) and
// the join, with parameters from ?5; runCond the condition on runs r that
// keeps the runs that may hold passing entries. none is set when nothing
// can pass.
type filter struct {
	join, cond string
	args       []any
	runCond    string
	runArgs    []any
	none       bool
	// noText leaves the candidates' text out (a count needs none).
	noText bool
}

// textSQL is the candidates' marked text, or nothing for a count.
func (f *filter) textSQL() string {
	if f.noText {
		return "''"
	}
	return markedSQL
}

// newFilter builds the filter of a query.
func newFilter(ctx context.Context, tx *sql.Tx, q Query) (*filter, error) {
	f := &filter{}
	var conds, runConds []string
	add := func(cond, runCond string, args ...any) {
		parts := strings.Split(cond, "?")
		for i, a := range args {
			f.args = append(f.args, a)
			parts[i] += "?" + strconv.Itoa(4+len(f.args))
		}
		if !strings.Contains(runCond, "?") {
			args = nil
		}
		conds, runConds, f.runArgs = append(conds, strings.Join(parts, "")), append(runConds, runCond), append(f.runArgs, args...)
	}
	if q.Cwd != "" {
		f.join = "JOIN files f ON f.id = e.file_id"
		add("f.cwd = ?", "r.file_id IN (SELECT id FROM files WHERE cwd = ?)", q.Cwd)
	}
	if q.Model != "" {
		models, err := matchingModels(ctx, tx, q.Model)
		if err != nil || len(models) == 0 {
			return &filter{none: true}, err
		}
		in, args := inList(models)
		in = "model " + in
		add("EXISTS (SELECT 1 FROM file_models m WHERE m.file_id = e.file_id AND m."+in+")",
			"r.file_id IN (SELECT file_id FROM file_models WHERE "+in+")", args...)
	}
	if len(q.Cwds) > 0 {
		f.join = "JOIN files f ON f.id = e.file_id"
		in, args := inList(q.Cwds)
		add("f.cwd "+in, "r.file_id IN (SELECT id FROM files WHERE cwd "+in+")", args...)
	}
	if len(q.Roles) > 0 {
		in, args := inList(q.Roles)
		add("e.role "+in, "1", args...)
	}
	switch q.Branch {
	case CurrentBranch:
		add("e.on_branch = 1", "1")
	case Abandoned:
		add("e.on_branch = 0", "1")
	}
	if !q.From.IsZero() {
		add("e.ts >= ?", "r.ts_hi >= ?", q.From.UnixMilli())
	}
	if !q.To.IsZero() {
		add("e.ts < ?", "r.ts_lo < ?", q.To.UnixMilli())
	}
	f.cond, f.runCond = strings.Join(conds, " AND "), strings.Join(runConds, " AND ")
	return f, nil
}

// inList is "IN (?, ...)" for vs and vs as arguments.
func inList(vs []string) (string, []any) {
	args := make([]any, len(vs))
	for i, v := range vs {
		args[i] = v
	}
	return "IN (?" + strings.Repeat(", ?", len(vs)-1) + ")", args
}

// matchingModels returns the model names of the index that a model filter
// names: "provider/id" itself, or any provider's "id".
func matchingModels(ctx context.Context, tx *sql.Tx, want string) ([]string, error) {
	models, err := texts(ctx, tx, "search", `SELECT DISTINCT model FROM file_models`)
	return slices.DeleteFunc(models, func(m string) bool { return m != want && !strings.HasSuffix(m, "/"+want) }), err
}

// candidates returns up to n of the newest matches of the MATCH
// expression that pass the filter. On an error (a search's budget ending,
// budget.go) it returns those read so far too, newest first.
func (f *filter) candidates(ctx context.Context, tx *sql.Tx, match string, n int) ([]cand, error) {
	all := rowRange{math.MinInt64, math.MaxInt64}
	if f.cond == "" {
		return f.inRanges(ctx, tx, match, []rowRange{all}, n)
	}
	out, last, err := f.probe(ctx, tx, match, n)
	if err != nil || len(out) >= n || last == math.MinInt64 {
		return out, err
	}
	ranges, err := runRanges(ctx, tx, f.runCond+" AND r.lo < ?", append(f.runArgs, last))
	if err != nil {
		return out, err
	}
	for i := range ranges {
		ranges[i].hi = min(ranges[i].hi, last-1)
	}
	more, err := f.inRanges(ctx, tx, match, ranges, n-len(out))
	return append(out, more...), err
}

// probe checks the newest probeRows matches against the filter. last is
// the rowid of the last match checked, MinInt64 when no match is left.
func (f *filter) probe(ctx context.Context, tx *sql.Tx, match string, n int) ([]cand, int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT fts.rowid, e.ts, e.on_branch, `+f.cond+`,
		CASE WHEN `+f.cond+` THEN `+f.textSQL()+` ELSE '' END
		FROM fts JOIN entries e ON e.rowid = fts.rowid `+f.join+`
		WHERE fts MATCH ?1 ORDER BY fts.rowid DESC LIMIT ?2`, append([]any{match, probeRows, nil, nil}, f.args...)...)
	if err != nil {
		return nil, 0, wrap("search", err)
	}
	defer rows.Close()
	var out []cand
	seen, last := 0, int64(math.MinInt64)
	for len(out) < n && (seen < probeMin || len(out)*probeRatio >= seen) {
		if !rows.Next() {
			if seen < probeRows {
				last = math.MinInt64 // every match was checked
			}
			break
		}
		var c cand
		var pass bool
		if err := rows.Scan(&c.rowid, &c.ts, &c.on, &pass, &c.marked); err != nil {
			return out, 0, wrap("search", err)
		}
		if pass {
			out = append(out, c)
		}
		seen, last = seen+1, c.rowid
	}
	return out, last, wrap("search", rows.Err())
}

// inRanges returns up to n matches that pass the filter from the ranges,
// newest first. FTS5 walks a doclist backwards at several times the cost
// of walking it forwards (more so for an OR of a prefix's completions),
// so a range small enough to read whole (ascRows) is read forwards and its
// newest matches kept; a larger one is read backwards up to the limit.
func (f *filter) inRanges(ctx context.Context, tx *sql.Tx, match string, ranges []rowRange, n int) ([]cand, error) {
	var stmts [2]*sql.Stmt
	defer func() {
		for _, s := range stmts {
			if s != nil {
				s.Close()
			}
		}
	}()
	var out []cand
	for _, r := range ranges {
		need := n - len(out)
		if need <= 0 {
			break
		}
		fwd := r.lo > math.MinInt64 && r.hi-r.lo < ascRows(need)
		i := map[bool]int{false: 0, true: 1}[fwd]
		if stmts[i] == nil {
			var err error
			if stmts[i], err = f.rangeStmt(ctx, tx, fwd); err != nil {
				return out, err
			}
		}
		got, err := rangeCands(ctx, stmts[i], append([]any{match, r.lo, r.hi, need}, f.args...))
		if fwd {
			slices.Reverse(got) // a part read forwards is left out: not the newest
			got = got[:min(need, len(got))]
			if err != nil {
				got = nil
			}
		}
		out = append(out, got...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// ascRows is the size in rows under which a range is read forwards when
// need matches are wanted: reading it whole costs at most a few times
// reading need of them.
func ascRows(need int) int64 { return int64(4*need + 1024) }

// rangeStmt is the query of the matches in a range (?2 to ?3) that pass
// the filter: newest first up to ?4, or (fwd) oldest first, all of them.
func (f *filter) rangeStmt(ctx context.Context, tx *sql.Tx, fwd bool) (*sql.Stmt, error) {
	cond, order := "", "DESC LIMIT ?4"
	if f.cond != "" {
		cond = "AND " + f.cond
	}
	if fwd {
		cond, order = cond+" AND ?4 > 0", "ASC"
	}
	stmt, err := tx.PrepareContext(ctx, `SELECT fts.rowid, e.ts, e.on_branch, `+f.textSQL()+`
		FROM fts JOIN entries e ON e.rowid = fts.rowid `+f.join+`
		WHERE fts MATCH ?1 AND fts.rowid BETWEEN ?2 AND ?3 `+cond+`
		ORDER BY fts.rowid `+order)
	return stmt, wrap("search", err)
}

// rangeCands runs a range query; on an error, with the rows read.
func rangeCands(ctx context.Context, stmt *sql.Stmt, args []any) ([]cand, error) {
	rows, err := stmt.QueryContext(ctx, args...)
	return collect(rows, err, "search", func(r *sql.Rows, c *cand) error {
		return r.Scan(&c.rowid, &c.ts, &c.on, &c.marked)
	})
}

// runRanges returns the ranges of the runs that pass cond, newest first.
func runRanges(ctx context.Context, tx *sql.Tx, cond string, args []any) ([]rowRange, error) {
	rows, err := tx.QueryContext(ctx, `SELECT lo, hi FROM runs r WHERE `+cond+` ORDER BY lo`, args...)
	runs, err := collect(rows, err, "search", func(r *sql.Rows, rr *rowRange) error { return r.Scan(&rr.lo, &rr.hi) })
	if err != nil {
		return nil, err
	}
	merged := mergeRuns(runs, maxRanges, minGap)
	slices.Reverse(merged)
	return merged, nil
}

// mergeRuns joins sorted, disjoint runs separated by less than minGap
// rows, then joins the closest ones until at most n remain.
func mergeRuns(runs []rowRange, n int, minGap int64) []rowRange {
	if len(runs) == 0 {
		return nil
	}
	gaps := make([]int64, 0, len(runs)-1)
	for i := 1; i < len(runs); i++ {
		gaps = append(gaps, runs[i].lo-runs[i-1].hi)
	}
	limit := minGap
	if len(gaps) >= n {
		sorted := slices.Clone(gaps)
		slices.SortFunc(sorted, func(a, b int64) int { return cmp.Compare(b, a) })
		limit = max(limit, sorted[n-1]+1) // keep only the n-1 widest gaps
	}
	out := []rowRange{runs[0]}
	for i, g := range gaps {
		if g < limit {
			out[len(out)-1].hi = runs[i+1].hi
		} else {
			out = append(out, runs[i+1])
		}
	}
	return out
}
