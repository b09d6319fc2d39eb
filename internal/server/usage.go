package server

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"piweb/internal/index"
	"piweb/internal/session"
)

// UsageRow is one group of GET /api/usage (see index.UsageRow).
type UsageRow = index.UsageRow

// UsageQuery asks for usage by day (in a zone), model or project.
type UsageQuery = index.UsageQuery

// UsageSource is implemented by catalogs that aggregate usage themselves
// (the SQLite index); others are scanned file by file.
type UsageSource interface {
	Usage(ctx context.Context, q UsageQuery) ([]UsageRow, error)
}

// Usage answers from the index's usage table.
func (c *IndexCatalog) Usage(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	return c.ix.Usage(ctx, q)
}

// getUsage answers GET /api/usage?by=day|model|project&tz=Area/City&days=N.
// Days are counted in tz (the browser's zone) when the server knows it,
// else in UTC; the answer says which. days keeps the last N calendar days,
// today included.
func (s *Server) getUsage(w http.ResponseWriter, r *http.Request) error {
	q, err := usageQuery(r)
	if err != nil {
		return err
	}
	var rows []UsageRow
	if us, isSource := s.cat.(UsageSource); isSource {
		rows, err = us.Usage(r.Context(), q)
	} else {
		rows, err = s.cachedUsage(r.Context(), q)
	}
	if err != nil {
		return wrap(Internal, err, "cannot compute usage")
	}
	if rows == nil {
		rows = []UsageRow{}
	}
	return ok(w, map[string]any{"rows": rows, "tz": q.Loc.String()})
}

func usageQuery(r *http.Request) (UsageQuery, error) {
	v := r.URL.Query()
	q := UsageQuery{By: cmp.Or(v.Get("by"), "day"), Loc: time.UTC}
	if q.By != "day" && q.By != "model" && q.By != "project" {
		return q, errorf(Invalid, "by must be day, model or project")
	}
	if tz := v.Get("tz"); tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			q.Loc = l
		}
	}
	if d := v.Get("days"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 || n > 100000 {
			return q, errorf(Invalid, "days must be a positive number")
		}
		y, m, day := time.Now().In(q.Loc).Date()
		q.Since = time.Date(y, m, day-(n-1), 0, 0, 0, 0, q.Loc)
	}
	return q, nil
}

// scanUsage reads every session's assistant messages, for catalogs
// without an index; it counts as the index does.
func (s *Server) scanUsage(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	metas, _, err := s.cat.List(ctx, ListQuery{})
	if err != nil {
		return nil, err
	}
	groups := map[string]*UsageRow{}
	for _, m := range metas {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sess, err := session.ReadFile(m.Path)
		if err != nil {
			continue
		}
		for _, e := range sess.Entries {
			addUsage(groups, q, m, e)
		}
	}
	rows := make([]UsageRow, 0, len(groups))
	for _, g := range groups {
		rows = append(rows, *g)
	}
	slices.SortFunc(rows, func(a, b UsageRow) int { return cmp.Compare(a.Key, b.Key) })
	return rows, nil
}

func addUsage(groups map[string]*UsageRow, q UsageQuery, m Meta, e *session.Entry) {
	c, ok := session.ChargeOf(e)
	if !ok {
		return
	}
	t, terr := time.Parse(time.RFC3339Nano, e.Timestamp)
	if !q.Since.IsZero() && (terr != nil || t.Before(q.Since)) {
		return
	}
	var key string
	switch q.By {
	case "model":
		key = c.Key
	case "project":
		key = m.Cwd
	default:
		if terr == nil {
			key = t.In(q.Loc).Format(time.DateOnly)
		}
	}
	g := groups[key]
	if g == nil {
		g = &UsageRow{Key: key}
		groups[key] = g
	}
	u, n := c.Usage, int64(0)
	if c.Answer {
		n = 1
	}
	g.Add(UsageRow{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Cost: u.Cost.Total, Messages: n})
}

// usageCache keeps scanned usage until the catalog changes: the scan reads
// every file.
type usageCache struct {
	mu   sync.Mutex
	gen  uint64
	rows map[string][]UsageRow
}

func (s *Server) cachedUsage(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	g, hasGen := s.cat.(interface{ Generation() uint64 })
	if !hasGen {
		return s.scanUsage(ctx, q)
	}
	c := &s.usage
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen := g.Generation(); c.rows == nil || c.gen != gen {
		c.rows, c.gen = map[string][]UsageRow{}, gen
	}
	key := fmt.Sprint(q.By, q.Loc, q.Since.Unix())
	if rows, found := c.rows[key]; found {
		return rows, nil
	}
	rows, err := s.scanUsage(ctx, q)
	if err == nil {
		c.rows[key] = rows
	}
	return rows, err
}
