package fleet

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
)

// searchSQL: the newest 200 matching entries of sessions not deleted are
// the candidates (counted, by session too, for the summary) (found by the entries' time alone: the newest first, or
// the matches sorted, as the planner finds cheaper), ranked as the local
// index ranks (relevance over 1 + age / 30 days), the newer first among
// equals; only the hits returned are highlighted.
const searchSQL = `WITH cand AS MATERIALIZED (
	SELECT e.machine, e.path, e.line
	FROM fleet.entries e JOIN fleet.sessions s ON s.machine = e.machine AND s.path = e.path
	WHERE e.tsv @@ ` + querySQL + ` AND NOT s.deleted AND ($2 = '' OR s.cwd = $2)` + filterSQL + `
	ORDER BY e.ts DESC NULLS LAST LIMIT 200),
per AS MATERIALIZED (SELECT machine, path, count(*) AS n FROM cand GROUP BY machine, path),
hits AS MATERIALIZED (
	SELECT e.machine, e.path, e.entry_id, e.role, e.ts, e.on_branch, e.text,
		ts_rank(e.tsv, ` + querySQL + `) / (1 + greatest(0, extract(epoch FROM now()) * 1000 - coalesce(e.ts, 0)) / 2592000000.0) AS rank
	FROM cand c JOIN fleet.entries e ON e.machine = c.machine AND e.path = c.path AND e.line = c.line
	ORDER BY rank DESC, e.ts DESC NULLS LAST
	LIMIT $3)
SELECT ` + itemCols + `, h.entry_id, h.role, h.ts, h.on_branch,
	ts_headline('simple', h.text, ` + querySQL + `, 'StartSel=` + startSel + `, StopSel=` + stopSel + `, MaxWords=30, MinWords=12, MaxFragments=1'),
	(SELECT p.n FROM per p WHERE p.machine = h.machine AND p.path = h.path), (SELECT count(*) FROM cand), (SELECT count(*) FROM per)
FROM hits h JOIN fleet.sessions s ON s.machine = h.machine AND s.path = h.path
ORDER BY h.rank DESC, h.ts DESC NULLS LAST`

// filterSQL keeps the candidates that pass the search filters, as the
// local index does: $5 project: names (a cwd, or a folder's base name
// lower-cased), $6 <= the entry's time in ms < $7, $8 the message roles,
// $9 on the current branch or not, $10 a model the session used.
const filterSQL = `
	AND (cardinality($5::text[]) = 0 OR s.cwd = ANY($5) OR lower(regexp_replace(s.cwd, '^.*/', '')) = ANY($5))
	AND ($6::bigint IS NULL OR e.ts >= $6) AND ($7::bigint IS NULL OR e.ts < $7)
	AND (cardinality($8::text[]) = 0 OR e.role = ANY($8)) AND ($9::boolean IS NULL OR e.on_branch = $9)
	AND ($10::text = '' OR EXISTS (SELECT 1 FROM fleet.usage u WHERE u.machine = s.machine AND u.path = s.path
		AND (u.model = $10 OR u.model LIKE '%/' || $10)))`

// filterArgs are filterSQL's $5 to $10 for q.
func filterArgs(q catalog.SearchQuery) []any {
	projects := []string{}
	for _, p := range q.Projects {
		projects = append(projects, p, strings.ToLower(p))
	}
	roles := []string{}
	for _, r := range q.Roles {
		roles = append(roles, catalog.SearchRoles[r]...)
	}
	var from, to, branch any
	if !q.From.IsZero() {
		from = q.From.UnixMilli()
	}
	if !q.To.IsZero() {
		to = q.To.UnixMilli()
	}
	if q.Branch == "current" || q.Branch == "abandoned" {
		branch = q.Branch == "current"
	}
	return []any{projects, from, to, roles, branch, q.Model}
}

// querySQL is the tsquery of splitQuery's words ($1) and prefixes ($4).
const querySQL = `CASE WHEN $4::text = '' THEN websearch_to_tsquery('simple', $1::text)
	WHEN $1::text = '' THEN to_tsquery('simple', $4::text)
	ELSE websearch_to_tsquery('simple', $1::text) && to_tsquery('simple', $4::text) END`

// splitQuery parts a query as the local search reads it: words and
// "phrases" (for websearch_to_tsquery, which takes any text) and words
// with a trailing * outside quotes, as a tsquery of prefixes ('wor':*,
// lower-cased, quoted so that no input is a syntax error).
func splitQuery(text string) (words, prefixes string) {
	var w, p []string
	quoted := false
	for _, part := range strings.Split(text, `"`) {
		if quoted {
			w = append(w, `"`+part+`"`)
		} else {
			for _, f := range strings.Fields(part) {
				t := strings.TrimRight(f, "*")
				if t == f || t == "" {
					w = append(w, f)
					continue
				}
				t = strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(t), `\`, `\\`), `'`, `''`)
				p = append(p, "'"+t+"':*")
			}
		}
		quoted = !quoted
	}
	return strings.Join(w, " "), strings.Join(p, " & ")
}

// Search finds q's words, "phrases" and prefix* in every machine's
// entries, as the local search does, with the hit's machine, within the
// reader's budget (budget.go): partial when it stopped at it.
func (r *Reader) Search(ctx context.Context, q catalog.SearchQuery) (apitype.Search, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	words, prefixes := splitQuery(q.Text)
	out, counts, partial, err := r.budgeted(ctx, append([]any{words, q.Project, limit + 1, prefixes}, filterArgs(q)...))
	if err != nil {
		return apitype.Search{}, err
	}
	if len(out.Hits) > limit {
		out.Hits, out.More = out.Hits[:limit], true
	}
	out.Total = len(out.Hits)
	out.SearchSummary = fleetSummary(q, out, counts)
	out.Partial = partial
	out.CountCapped = out.CountCapped || partial
	return out, nil
}

// scanHits reads searchSQL's rows.
func scanHits(rows pgx.Rows) (apitype.Search, matchCounts, error) {
	defer rows.Close()
	out := apitype.Search{Hits: []apitype.Hit{}}
	counts := matchCounts{bySession: map[[2]string]int{}}
	for rows.Next() {
		var h apitype.Hit
		var ts *int64
		var headline string
		var n int
		it, err := scanItem(rows, &h.EntryID, &h.Role, &ts, &h.OnCurrentBranch, &headline, &n, &counts.total, &counts.sessions)
		if err != nil {
			return apitype.Search{}, counts, err
		}
		counts.bySession[[2]string{it.Machine, it.Path}] = n
		text, hl := snippet(headline)
		ch := catalog.Hit{Snippet: text, Highlights: hl}.JSON(func(catalog.Meta) catalog.Item { return catalog.Item{} })
		h.Snippet, h.Highlights = ch.Snippet, ch.Highlights
		h.SessionID, h.Machine, h.Timestamp, h.Session = it.ID, it.Machine, isoMs(ts), it
		out.Hits = append(out.Hits, h)
	}
	return out, counts, rows.Err()
}

// candidates is how many of the newest matches a search ranks (searchSQL's
// LIMIT); they are also what it counts (the local search counts 2,000,
// decision 0025): counting further took a second reading of a common
// word's matches, p50 5 -> 32 ms and p99 16 -> 203 ms over 1M entries.
const candidates = 200

// matchCounts are a search's candidates: by session (machine and path)
// for the sessions of the hits, in all, and the sessions they are in.
type matchCounts struct {
	bySession map[[2]string]int
	total     int
	sessions  int
}

// fleetSummary is the summary of a fleet search: every match counted (up
// to candidates, then "at least"), the sessions of the hits returned in
// the order of their best hit, each with its machine and number of
// matches: a session is its machine and path, as two machines may hold
// one id.
func fleetSummary(q catalog.SearchQuery, out apitype.Search, c matchCounts) catalog.SearchSummary {
	s := catalog.SearchSummary{Count: c.total, CountCapped: c.total >= candidates, Text: q.Text, Filters: []catalog.Filter{},
		Warnings: q.Warnings, Sessions: []catalog.SessionCount{}, SessionCount: c.sessions}
	seen := map[[2]string]bool{}
	for _, h := range out.Hits {
		k := [2]string{h.Machine, h.Session.Path}
		if !seen[k] {
			seen[k] = true
			s.Sessions = append(s.Sessions, catalog.SessionCount{SessionID: h.SessionID, Machine: h.Machine, Count: c.bySession[k]})
		}
	}
	if q.Filters != nil {
		s.Filters = q.Filters
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s
}

// Marks around the matched words in ts_headline's answer: control
// characters that clean text hardly holds.
const startSel, stopSel = "\x02", "\x03"

// snippet turns a ts_headline answer into its text and the byte ranges
// of its matches.
func snippet(h string) (string, [][2]int) {
	var b strings.Builder
	var hl [][2]int
	for {
		i := strings.Index(h, startSel)
		if i < 0 {
			b.WriteString(h)
			return b.String(), hl
		}
		b.WriteString(h[:i])
		h = h[i+len(startSel):]
		j := strings.Index(h, stopSel)
		if j < 0 {
			j = len(h)
		}
		hl = append(hl, [2]int{b.Len(), b.Len() + j})
		b.WriteString(h[:j])
		h = h[min(len(h), j+len(stopSel)):]
	}
}
