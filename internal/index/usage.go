package index

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"piweb/internal/apitype"
	"piweb/pisession"
)

// Usage totals are kept in the usage table, one row per file, half-hour
// slot of the entry time and model, so that GET /api/usage is one GROUP BY
// over a few rows per session instead of a read of every file. Half-hour
// slots (not days) let a day be counted in the reader's time zone: a
// local day is a union of slots in every zone whose offset is a whole
// number of half hours.
//
// The rows are fed where the metadata is folded: meta.add sums the usage of
// the entries it sees since the row was loaded (fresh), and saveUsage adds
// those sums to the table, so an append adds only its own entries; a full
// reparse first deletes the file's rows.
//
// Forks and clones copy their parent's entries, answers included (same
// entry id and timestamp), so the usage page counts each answer once
// across a family of files: in a file with a parentSession,
// the entries older than its header were copied from the parent, and
// their rows (copy = 1) count only when the parent is not in the listing
// (trashed, moved). The parent's own rows count its answers, copied from
// its own parent or not, by the same rule. A session's own cost (meta)
// still counts every entry of its file, as pi's /session does.

// usageSlot is the width of a usage bucket.
const usageSlot = 30 * time.Minute

// usageKey is one bucket of a file's usage.
type usageKey struct {
	slot  int64 // entry time / usageSlot; -1 when the entry has no time
	model string
	copy  bool // copied from the parent session
}

// usageSum is what a bucket adds up.
type usageSum struct {
	input, output, cacheRead, cacheWrite, cost float64
	messages                                   int64
}

func (s *usageSum) add(c pisession.Charge) {
	u := &c.Usage
	addSat(&s.input, u.Input)
	addSat(&s.output, u.Output)
	addSat(&s.cacheRead, u.CacheRead)
	addSat(&s.cacheWrite, u.CacheWrite)
	addSat(&s.cost, u.Cost.Total)
	if c.Answer {
		s.messages++
	}
}

// addUsage notes a charge at entry time ts (ms), under its breakdown key
// (pi's /session: provider/(responseModel ?? model) for answers).
func (md *meta) addUsage(ts int64, c pisession.Charge) {
	k := usageKey{slot: -1, model: c.Key, copy: md.forkedAt > 0 && ts < md.forkedAt}
	if ts > 0 {
		k.slot = ts / usageSlot.Milliseconds()
	}
	if md.fresh == nil {
		md.fresh = map[usageKey]*usageSum{}
	}
	s := md.fresh[k]
	if s == nil {
		s = &usageSum{}
		md.fresh[k] = s
	}
	s.add(c)
}

const (
	usageAddSQL = `INSERT INTO usage(file_id, slot, model, copy, input, output, cache_read, cache_write, cost, messages)
		VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(file_id, slot, model, copy) DO UPDATE SET
		input = input + excluded.input, output = output + excluded.output,
		cache_read = cache_read + excluded.cache_read, cache_write = cache_write + excluded.cache_write,
		cost = cost + excluded.cost, messages = messages + excluded.messages`
	usageClearSQL = `DELETE FROM usage WHERE file_id = ?`
)

// saveUsage adds the usage folded into md since it was loaded to the
// file's rows; full means the file was reparsed from the start.
func (ix *Index) saveUsage(ctx context.Context, tx *sql.Tx, fileID int64, full bool, md *meta) error {
	if full {
		if _, err := ix.ws.in(ctx, tx, usageClearSQL).ExecContext(ctx, fileID); err != nil {
			return wrap("clear usage", err)
		}
	}
	if len(md.fresh) == 0 {
		return nil
	}
	add := ix.ws.in(ctx, tx, usageAddSQL)
	for k, s := range md.fresh {
		_, err := add.ExecContext(ctx, fileID, k.slot, k.model, k.copy, s.input, s.output, s.cacheRead, s.cacheWrite, s.cost, s.messages)
		if err != nil {
			return wrap("save usage", err)
		}
	}
	md.fresh = nil
	return nil
}

// UsageQuery asks for usage totals grouped By "day", "model", "project"
// or "session" (the key is the file's path); days are calendar days in
// Loc (nil means UTC). A non-zero Since counts only answers from then on
// (rounded down to a half hour). Split ("model" or "project") splits each
// day's row by that (UsageRow.Group), for the usage page's stacked bars.
type UsageQuery struct {
	By    string
	Loc   *time.Location
	Since time.Time
	Split string
}

// fromSlot is the first slot counted: -1 (answers without a time too)
// unless q.Since is set.
func (q UsageQuery) fromSlot() int64 {
	if q.Since.IsZero() {
		return -1
	}
	return max(0, q.Since.UnixMilli()/usageSlot.Milliseconds())
}

// UsageRow is one group: the tokens and cost of the assistant messages in
// it (their usage as pi recorded it) and how many there were
// (apitype.UsageRow, where the API's shapes are defined).
type UsageRow = apitype.UsageRow

// AddUsage adds o's tokens, cost and count to r, saturating as the
// index's sums do (addSat).
func AddUsage(r *UsageRow, o UsageRow) {
	addSat(&r.Input, o.Input)
	addSat(&r.Output, o.Output)
	addSat(&r.CacheRead, o.CacheRead)
	addSat(&r.CacheWrite, o.CacheWrite)
	addSat(&r.Cost, o.Cost)
	r.Messages += o.Messages
}

// usageListed keeps the rows of files in the listing (an unreadable or
// headerless file keeps its rows until it is read again), and of copied
// entries only those whose parent session is not listed.
const usageListed = `file_id NOT IN (SELECT id FROM files WHERE listed = 0 OR error != '') AND ` + copyCounts

// copyCounts drops the rows of copied entries whose parent is listed: the
// file at the parentSession path, or else (files moved or copied, project
// folder renamed) the session whose id is in that path's file name, as
// the listing links them (parentsByName, pisession.IDFromFileName).
const copyCounts = `(copy = 0 OR file_id NOT IN (SELECT f.id FROM files f JOIN files p ON p.path = f.parent_path
	WHERE f.parent_path != '' AND p.listed = 1 AND p.error = '') AND file_id NOT IN (SELECT f.id FROM files f
	JOIN files p ON p.session_id = lower(substr(f.parent_path, -42, 36)) AND p.id != f.id
	WHERE substr(f.parent_path, -6) = '.jsonl' AND substr(f.parent_path, -43, 1) = '_' AND p.listed = 1 AND p.error = ''))`

const usageSums = `sum(input), sum(output), sum(cache_read), sum(cache_write), sum(cost), sum(messages)`

// Usage sums the usage of every listed session, grouped as q asks, sorted
// by key. Assistant messages count on their entry's time. The grouping is
// done by SQLite so that only the groups cross the driver (a row costs
// microseconds there): days by a per-zone-period offset added to the slot,
// projects after a first sum per file that follows the table's order.
func (ix *Index) Usage(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	var query string
	var args []any
	switch q.By {
	case "model":
		query = `SELECT model, ` + usageSums + ` FROM usage WHERE slot >= ? AND ` + usageListed + ` GROUP BY 1`
		args = []any{q.fromSlot()}
	case "project":
		query, args = byFileQuery("f.cwd"), []any{q.fromSlot()}
	case "session":
		query, args = byFileQuery("f.path"), []any{q.fromSlot()}
	case "day":
		day, dargs, err := ix.dayExpr(ctx, q.Loc, q.fromSlot())
		if err != nil {
			return nil, err
		}
		query, args = daySplitQuery(day, q.Split), append(dargs, q.fromSlot())
	default:
		return nil, fmt.Errorf("index: usage by %q: want day, model, project or session", q.By)
	}
	return ix.usageRows(ctx, q.By == "day" && q.Split != "", query, args...)
}

// byFileQuery groups by the files' column col (the project or the
// session) after a first sum per file that follows the table's order.
func byFileQuery(col string) string {
	return `SELECT ` + col + `, sum(i), sum(o), sum(cr), sum(cw), sum(c), sum(n) FROM (SELECT file_id,
		sum(input) i, sum(output) o, sum(cache_read) cr, sum(cache_write) cw, sum(cost) c, sum(messages) n
		FROM usage WHERE slot >= ? AND ` + copyCounts + ` GROUP BY file_id) JOIN files f ON f.id = file_id
		WHERE f.listed = 1 AND f.error = '' GROUP BY 1`
}

// daySplitQuery groups by the day expression day, and by model or
// project when split says so (the group is the second column).
func daySplitQuery(day, split string) string {
	switch split {
	case "model":
		return `SELECT ` + day + `, model, ` + usageSums + ` FROM usage WHERE slot >= ? AND ` + usageListed +
			` GROUP BY 1, 2`
	case "project":
		return `SELECT d, f.cwd, sum(i), sum(o), sum(cr), sum(cw), sum(c), sum(n) FROM (SELECT ` + day + ` d, file_id,
			sum(input) i, sum(output) o, sum(cache_read) cr, sum(cache_write) cw, sum(cost) c, sum(messages) n
			FROM usage WHERE slot >= ? AND ` + copyCounts + ` GROUP BY 1, 2) JOIN files f ON f.id = file_id
			WHERE f.listed = 1 AND f.error = '' GROUP BY 1, 2`
	}
	return `SELECT ` + day + `, ` + usageSums + ` FROM usage WHERE slot >= ? AND ` + usageListed + ` GROUP BY 1`
}

// dayExpr is the SQL of a slot's local day number: the slot's start plus
// the zone's offset in force then, over the zone periods between the first
// and last slot (a year has a few), divided by a day; -1 stands for no
// time.
func (ix *Index) dayExpr(ctx context.Context, loc *time.Location, from int64) (string, []any, error) {
	var lo, hi sql.NullInt64
	err := ix.db.QueryRowContext(ctx, `SELECT min(slot), max(slot) FROM usage WHERE slot >= max(0, ?)`, from).Scan(&lo, &hi)
	if err != nil {
		return "", nil, wrap("usage", err)
	}
	if loc == nil {
		loc = time.UTC
	}
	slotSec := int64(usageSlot / time.Second)
	whens, args := "", []any{}
	for t, end := time.Unix(lo.Int64*slotSec, 0).In(loc), time.Unix(hi.Int64*slotSec, 0); ; {
		_, off := t.Zone()
		_, until := t.ZoneBounds()
		if until.IsZero() || until.After(end) {
			args = append(args, off)
			break
		}
		whens += " WHEN slot < ? THEN ?"
		args = append(args, (until.Unix()+slotSec-1)/slotSec, off)
		t = until.In(loc)
	}
	offset := "?"
	if whens != "" {
		offset = "CASE" + whens + " ELSE ? END"
	}
	return `CASE WHEN slot < 0 THEN -1 ELSE (slot * ` + fmt.Sprint(slotSec) + ` + ` + offset + `) / 86400 END`, args, nil
}

// usageRows reads grouped rows; an integer key is a day number; with
// grouped, the second column is the row's Group.
func (ix *Index) usageRows(ctx context.Context, grouped bool, query string, args ...any) ([]UsageRow, error) {
	rows, err := ix.db.QueryContext(ctx, query, args...)
	out, err := collect(rows, err, "usage", func(rows *sql.Rows, r *UsageRow) error {
		var k any
		var sums [5]sql.NullFloat64
		dest := []any{&k, &sums[0], &sums[1], &sums[2], &sums[3], &sums[4], &r.Messages}
		if grouped {
			dest = slices.Insert(dest, 1, any(&r.Group))
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i, f := range []*float64{&r.Input, &r.Output, &r.CacheRead, &r.CacheWrite, &r.Cost} {
			*f = finiteSum(sums[i])
		}
		r.Key = usageKeyString(k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b UsageRow) int { return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Group, b.Group)) })
	return out, nil
}

// usageKeyString turns a grouped column into a key: a day number becomes
// its date.
func usageKeyString(k any) string {
	switch v := k.(type) {
	case int64:
		if v < 0 {
			return ""
		}
		return time.Unix(v*86400, 0).UTC().Format(time.DateOnly)
	case string:
		return v
	case []byte:
		return string(v)
	}
	return fmt.Sprint(k)
}

// UsageDay is the day key of a time in ms: YYYY-MM-DD in loc (nil: UTC).
func UsageDay(ms int64, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return time.UnixMilli(ms).In(loc).Format(time.DateOnly)
}

// finiteSum is a SQL sum of usage numbers as a JSON-encodable one: sums
// past a double's range (Infinity) saturate as the index's own do
// (addSat), and a sum with no value (SQLite's NULL, also what it makes of
// Infinity minus Infinity) is 0.
func finiteSum(v sql.NullFloat64) float64 {
	if !v.Valid || math.IsNaN(v.Float64) {
		return 0
	}
	return pisession.Finite(v.Float64)
}
