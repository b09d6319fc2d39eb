package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/ctxwait"
)

// Reader answers the fleet-wide listing and search from the database:
// every machine's sessions as last pushed (GET /api/sessions?fleet=1,
// GET /api/search?fleet=1).
type Reader struct {
	pool *pgxpool.Pool
	// budget is a search's time budget, window the newest entries a
	// search that ran out of it reads again (budget.go).
	budget time.Duration
	window int
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
	return &Reader{pool: pool, budget: defaultBudget, window: recentWindow}, nil
}

// Listen calls changed with a machine's name each time a push of that
// machine commits, until ctx ends: one connection LISTENs on Channel,
// reconnecting after a failure (retry, doubling to a minute). Changes
// during a reconnection are not replayed: changed gets "" once listening
// again, for callers to reload.
func (r *Reader) Listen(ctx context.Context, retry time.Duration, changed func(machine string)) {
	backoff := retry
	for ctx.Err() == nil {
		err := r.listen(ctx, changed)
		if ctx.Err() != nil {
			return
		}
		_ = err                         // the push's status says why the database is unreachable
		_ = ctxwait.Sleep(ctx, backoff) // the loop ends when ctx does
		backoff = min(2*backoff, time.Minute)
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

// usageKeys are the groups of Usage as SQL over u (usage rows joined to
// their session's cwd).
var usageKeys = map[string]string{
	"day":     `coalesce(to_char(to_timestamp(u.ts / 1000.0) AT TIME ZONE $1::text, 'YYYY-MM-DD'), '')`,
	"model":   `u.model`,
	"project": `u.cwd`,
	"machine": `u.machine`,
}

// UsageQuery asks for the fleet's usage grouped By day (in TZ), model,
// project or machine, since a time (zero: all); Split ("model",
// "project" or "machine", with By "day") splits each day's row by that
// (UsageRow.Group), as the local usage does for the page's stacked bars.
type UsageQuery struct {
	By, Split, TZ string
	Since         time.Time
}

// usageRows are the fleet's usage rows as Usage counts them, since $2
// (NULL: all), with their session's cwd: an answer copied into forks and
// clones (same machine, entry id and time) counts once; deleted sessions
// do not count. $1 is the time zone, which the query must use.
const usageRows = `WITH u AS (
	SELECT DISTINCT ON (u.machine, CASE WHEN u.entry_id = '' THEN u.path || ':' || u.line ELSE u.entry_id END, u.ts)
		u.*, s.cwd
	FROM fleet.usage u JOIN fleet.sessions s ON s.machine = u.machine AND s.path = u.path AND NOT s.deleted
	WHERE ($2::bigint IS NULL OR u.ts >= $2) AND $1::text IS NOT NULL)`

const usageSums = `sum(input), sum(output), sum(cache_read), sum(cache_write), sum(cost), count(*) FILTER (WHERE answer)`

// Usage is GET /api/usage?fleet=1: every machine's usage grouped as q
// asks, sorted by key and group.
func (r *Reader) Usage(ctx context.Context, q UsageQuery) ([]catalog.UsageRow, error) {
	key, ok := usageKeys[q.By]
	group, okSplit := usageKeys[q.Split]
	if !ok || q.Split != "" && (!okSplit || q.By != "day" || q.Split == "day") {
		return nil, fmt.Errorf("fleet usage: no grouping %q split by %q", q.By, q.Split)
	}
	if q.Split == "" {
		group = `''`
	}
	rows, err := r.pool.Query(ctx, usageRows+` SELECT `+key+`, `+group+`, `+usageSums+`
	FROM u GROUP BY 1, 2 ORDER BY 1, 2`, q.TZ, since(q.Since))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (catalog.UsageRow, error) {
		var u catalog.UsageRow
		err := row.Scan(&u.Key, &u.Group, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Cost, &u.Messages)
		return u, err
	})
}

// since is a usage query's lower bound in ms, NULL for all.
func since(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// UsageSessions is GET /api/usage/sessions?fleet=1: the limit sessions
// of every machine that cost the most since a time (zero: all), counted
// as Usage counts, the most expensive first, each with its machine.
func (r *Reader) UsageSessions(ctx context.Context, from time.Time, limit int) ([]apitype.UsageSession, error) {
	rows, err := r.pool.Query(ctx, usageRows+` SELECT `+itemCols+`, x.i, x.o, x.cr, x.cw, x.c, x.n
	FROM (SELECT machine, path, sum(input) i, sum(output) o, sum(cache_read) cr, sum(cache_write) cw, sum(cost) c,
		count(*) FILTER (WHERE answer) n FROM u GROUP BY 1, 2) x
	JOIN fleet.sessions s ON s.machine = x.machine AND s.path = x.path
	ORDER BY x.c DESC, s.modified DESC, s.machine, s.path LIMIT $3`, "UTC", since(from), limit)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (apitype.UsageSession, error) {
		var us apitype.UsageSession
		u := &us.Usage
		it, err := scanItem(row, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Cost, &u.Messages)
		us.Session = it
		return us, err
	})
	if out == nil {
		out = []apitype.UsageSession{}
	}
	return out, err
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
