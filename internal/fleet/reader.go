package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
)

// Reader answers the fleet-wide listing and search from the database:
// every machine's sessions as last pushed (GET /api/sessions?fleet=1,
// GET /api/search?fleet=1).
type Reader struct {
	pool *pgxpool.Pool
}

// NewReader returns a reader of the fleet at url; it connects on first
// use, so a database that is down fails the requests, not the start.
func NewReader(url string) (*Reader, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 4
	// Each query is planned for its values: a search for a common word
	// and one for a rare word want different plans, which one generic plan
	// of a cached statement would not give both.
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return &Reader{pool: pool}, nil
}

// Listen calls changed with a machine's name each time a push of that
// machine commits, until ctx ends: one connection LISTENs on Channel,
// reconnecting after a failure (retry, doubling to a minute). Changes
// during a reconnection are not replayed: changed gets "" once listening
// again, for callers to reload.
func (r *Reader) Listen(ctx context.Context, retry time.Duration, changed func(machine string)) {
	wait := retry
	for ctx.Err() == nil {
		err := r.listen(ctx, changed)
		if ctx.Err() != nil {
			return
		}
		_ = err // the push's status says why the database is unreachable
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		wait = min(2*wait, time.Minute)
		changed("")
	}
}

func (r *Reader) listen(ctx context.Context, changed func(string)) error {
	c, err := r.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	conn := c.Hijack() // a listening connection is not returned to the pool
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+Channel); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		changed(n.Payload)
	}
}

// Close closes the reader's connections.
func (r *Reader) Close() { r.pool.Close() }

// sortCols are the listing's sort keys as columns.
var sortCols = map[string]string{"modified": "modified", "created": "created", "messages": "message_count", "size": "size",
	"name": "CASE WHEN has_name THEN name ELSE first_message END"}

// itemCols select an Item's fields from fleet.sessions s, the parent's
// key resolved on the same machine.
const itemCols = `s.key, s.machine, s.path, s.cwd, s.name, s.has_name, s.created, s.modified, s.message_count,
	s.first_message, s.parent_path, s.size,
	(SELECT p.key FROM fleet.sessions p WHERE p.machine = s.machine AND p.path = s.parent_path AND NOT p.deleted)`

// Sessions lists the fleet's sessions that are not deleted: q as the
// local listing takes it (project, text, sort, order, page) and machine
// ("" for all).
func (r *Reader) Sessions(ctx context.Context, q catalog.ListQuery, machine string) (apitype.SessionList, error) {
	col, ok := sortCols[q.Sort]
	if !ok {
		col = sortCols["modified"]
	}
	dir := "DESC"
	if q.Asc {
		dir = "ASC"
	}
	var limit any
	if q.Limit > 0 {
		limit = q.Limit
	}
	rows, err := r.pool.Query(ctx, `SELECT `+itemCols+` FROM fleet.sessions s WHERE `+listWhere+`
		ORDER BY `+col+` `+dir+`, s.machine, s.path LIMIT $4 OFFSET $5`,
		q.Project, machine, q.Text, limit, q.Offset)
	if err != nil {
		return apitype.SessionList{}, err
	}
	var out apitype.SessionList
	out.Sessions, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (apitype.Item, error) { return scanItem(row) })
	if err != nil {
		return apitype.SessionList{}, err
	}
	if out.Sessions == nil {
		out.Sessions = []apitype.Item{} // [] in JSON
	}
	// Counted apart: a count over the page's rows (a window) makes the
	// first page read and sort every session first.
	err = r.pool.QueryRow(ctx, `SELECT count(*) FROM fleet.sessions s WHERE `+listWhere, q.Project, machine, q.Text).
		Scan(&out.Total)
	return out, err
}

// listWhere selects the listing's sessions: not deleted, of a project
// ($1) and machine ($2) when given, whose name, first message or entries
// hold the text $3.
const listWhere = `NOT s.deleted AND ($1 = '' OR s.cwd = $1) AND ($2 = '' OR s.machine = $2)
	AND ($3 = '' OR strpos(lower(s.name || ' ' || s.first_message), lower($3)) > 0
		OR EXISTS (SELECT 1 FROM fleet.entries e WHERE e.machine = s.machine AND e.path = s.path
			AND e.tsv @@ websearch_to_tsquery('simple', $3)))`

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
// entries, as the local search does, with the hit's machine.
func (r *Reader) Search(ctx context.Context, q catalog.SearchQuery) (apitype.Search, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	words, prefixes := splitQuery(q.Text)
	rows, err := r.pool.Query(ctx, searchSQL, append([]any{words, q.Project, limit + 1, prefixes}, filterArgs(q)...)...)
	if err != nil {
		return apitype.Search{}, err
	}
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
			return apitype.Search{}, err
		}
		counts.bySession[[2]string{it.Machine, it.Path}] = n
		text, hl := snippet(headline)
		ch := catalog.Hit{Snippet: text, Highlights: hl}.JSON(func(catalog.Meta) catalog.Item { return catalog.Item{} })
		h.Snippet, h.Highlights = ch.Snippet, ch.Highlights
		h.SessionID, h.Machine, h.Timestamp, h.Session = it.ID, it.Machine, isoMs(ts), it
		out.Hits = append(out.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return apitype.Search{}, err
	}
	if len(out.Hits) > limit {
		out.Hits, out.More = out.Hits[:limit], true
	}
	out.Total = len(out.Hits)
	out.SearchSummary = fleetSummary(q, out, counts)
	return out, nil
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
// the order of their best hit, each with its number of matches.
func fleetSummary(q catalog.SearchQuery, out apitype.Search, c matchCounts) catalog.SearchSummary {
	s := catalog.SearchSummary{Count: c.total, CountCapped: c.total >= candidates, Text: q.Text, Filters: []catalog.Filter{},
		Warnings: q.Warnings, Sessions: []catalog.SessionCount{}, SessionCount: c.sessions}
	seen := map[[2]string]bool{}
	for _, h := range out.Hits {
		k := [2]string{h.Machine, h.Session.Path}
		if !seen[k] {
			seen[k] = true
			s.Sessions = append(s.Sessions, catalog.SessionCount{SessionID: h.SessionID, Count: c.bySession[k]})
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

// scanItem reads itemCols, then extra.
func scanItem(row pgx.Row, extra ...any) (apitype.Item, error) {
	var it apitype.Item
	var name, parentPath string
	var hasName bool
	var created, modified float64
	var parentKey *string
	dest := append([]any{&it.ID, &it.Machine, &it.Path, &it.Cwd, &name, &hasName, &created, &modified, &it.MessageCount,
		&it.FirstMessage, &parentPath, &it.Size, &parentKey}, extra...)
	if err := row.Scan(dest...); err != nil {
		return it, err
	}
	if hasName {
		it.Name = &name
	}
	it.Created, it.Modified = catalog.ISOTime(created), catalog.ISOTime(modified)
	if parentPath != "" {
		it.ParentSessionPath = &parentPath
		it.ParentSessionID = parentKey
	}
	return it, nil
}

// isoMs writes an entry time in ms as the API does.
func isoMs(ms *int64) string {
	if ms == nil {
		return ""
	}
	return time.UnixMilli(*ms).UTC().Format("2006-01-02T15:04:05.000Z")
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

// usageKeys are the groups of Usage as SQL over u (usage rows joined to
// their session's cwd).
var usageKeys = map[string]string{
	"day":     `coalesce(to_char(to_timestamp(u.ts / 1000.0) AT TIME ZONE $1::text, 'YYYY-MM-DD'), '')`,
	"model":   `u.model`,
	"project": `u.cwd`,
	"machine": `u.machine`,
}

// Usage is GET /api/usage?fleet=1: every machine's usage grouped by day
// (in tz), model, project or machine, since a time (zero: all). An answer
// copied into forks and clones (same machine, entry id and time) counts
// once; deleted sessions do not count.
func (r *Reader) Usage(ctx context.Context, by, tz string, since time.Time) ([]catalog.UsageRow, error) {
	key, ok := usageKeys[by]
	if !ok {
		return nil, fmt.Errorf("fleet usage: no grouping %q", by)
	}
	var from any
	if !since.IsZero() {
		from = since.UnixMilli()
	}
	rows, err := r.pool.Query(ctx, `WITH u AS (
		SELECT DISTINCT ON (u.machine, CASE WHEN u.entry_id = '' THEN u.path || ':' || u.line ELSE u.entry_id END, u.ts)
			u.*, s.cwd
		FROM fleet.usage u JOIN fleet.sessions s ON s.machine = u.machine AND s.path = u.path AND NOT s.deleted
		WHERE ($2::bigint IS NULL OR u.ts >= $2) AND $1::text IS NOT NULL)
	SELECT `+key+`, sum(input), sum(output), sum(cache_read), sum(cache_write), sum(cost), count(*) FILTER (WHERE answer)
	FROM u GROUP BY 1 ORDER BY 1`, tz, from)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (catalog.UsageRow, error) {
		var u catalog.UsageRow
		err := row.Scan(&u.Key, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Cost, &u.Messages)
		return u, err
	})
}

// ErrNoSession is Session's answer for a session the fleet does not have
// (or has as deleted).
var ErrNoSession = errors.New("fleet: no such session")

// Session reads a session of a machine from the database, by its API id
// on that machine: its listing and its file as pushed (every complete
// line, byte for byte; nothing for a machine that shares only meta), so
// that it can be read while its machine is off.
func (r *Reader) Session(ctx context.Context, machine, key string) (catalog.Meta, []byte, error) {
	var m catalog.Meta
	var data []byte
	err := r.pool.QueryRow(ctx, `SELECT s.key, s.session_id, s.path, s.cwd, s.name, s.has_name, s.created, s.modified,
		s.message_count, s.first_message, s.parent_path, s.size,
		coalesce((SELECT string_agg(l.raw || '\x0a'::bytea, ''::bytea ORDER BY l.line) FROM fleet.lines l
			WHERE l.machine = s.machine AND l.path = s.path), ''::bytea)
		FROM fleet.sessions s WHERE s.machine = $1 AND s.key = $2 AND NOT s.deleted`, machine, key).Scan(
		&m.Key, &m.ID, &m.Path, &m.Cwd, &m.Name, &m.HasName, &m.Created, &m.Modified, &m.MessageCount,
		&m.FirstMessage, &m.ParentPath, &m.Size, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, nil, ErrNoSession
	}
	return m, data, err
}

// MachineInfo is one machine of the fleet as GET /api/fleet/machines
// lists it.
type MachineInfo = apitype.FleetMachine

// Machines lists the fleet's machines by name, online as of now.
func (r *Reader) Machines(ctx context.Context, now time.Time) ([]MachineInfo, error) {
	return machines(ctx, r.pool, now)
}

// rowsQuerier is a pool or one connection.
type rowsQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// machines lists the fleet's machines by name, online as of now.
func machines(ctx context.Context, db rowsQuerier, now time.Time) ([]MachineInfo, error) {
	rows, err := db.Query(ctx, `SELECT m.name, m.piweb_version, m.pi_version, m.advertise_url, m.share,
		m.last_push, m.last_heartbeat,
		(SELECT count(*) FROM fleet.sessions s WHERE s.machine = m.name AND NOT s.deleted)
		FROM fleet.machines m ORDER BY m.name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (MachineInfo, error) {
		var m MachineInfo
		var last *time.Time
		err := row.Scan(&m.Name, &m.PiwebVersion, &m.PiVersion, &m.Advertise, &m.Share, &last, &m.LastHeartbeat, &m.Sessions)
		if last != nil {
			m.LastPush = *last
		}
		m.Online = now.Sub(m.LastHeartbeat) <= heartbeatLate
		return m, err
	})
}
