package server

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"piweb/internal/index"
	"piweb/internal/session"
)

// UsageRow is one group of GET /api/usage (see index.UsageRow).
type UsageRow = index.UsageRow

// UsageSource is implemented by catalogs that aggregate usage themselves
// (the SQLite index); others are scanned file by file. Days are calendar
// days in loc.
type UsageSource interface {
	Usage(ctx context.Context, by string, loc *time.Location) ([]UsageRow, error)
}

// Usage answers from the index's usage table.
func (c *IndexCatalog) Usage(ctx context.Context, by string, loc *time.Location) ([]UsageRow, error) {
	return c.ix.Usage(ctx, index.UsageQuery{By: by, Loc: loc})
}

// getUsage answers GET /api/usage?by=day|model|project&tz=Area/City. Days
// are counted in tz (the browser's zone) when the server knows it, else in
// UTC; the answer says which.
func (s *Server) getUsage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	by := cmp.Or(q.Get("by"), "day")
	if by != "day" && by != "model" && by != "project" {
		return errorf(Invalid, "by must be day, model or project")
	}
	loc := time.UTC
	if tz := q.Get("tz"); tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			loc = l
		}
	}
	var rows []UsageRow
	var err error
	if us, isSource := s.cat.(UsageSource); isSource {
		rows, err = us.Usage(r.Context(), by, loc)
	} else {
		rows, err = s.cachedUsage(r.Context(), by, loc)
	}
	if err != nil {
		return wrap(Internal, err, "cannot compute usage")
	}
	if rows == nil {
		rows = []UsageRow{}
	}
	return ok(w, map[string]any{"rows": rows, "tz": loc.String()})
}

// scanUsage reads every session's assistant messages, for catalogs
// without an index; it counts as the index does.
func (s *Server) scanUsage(ctx context.Context, by string, loc *time.Location) ([]UsageRow, error) {
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
			addUsage(groups, by, loc, m, e)
		}
	}
	rows := make([]UsageRow, 0, len(groups))
	for _, g := range groups {
		rows = append(rows, *g)
	}
	slices.SortFunc(rows, func(a, b UsageRow) int { return cmp.Compare(a.Key, b.Key) })
	return rows, nil
}

func addUsage(groups map[string]*UsageRow, by string, loc *time.Location, m Meta, e *session.Entry) {
	if e.Type != "message" {
		return
	}
	msg, isMsg := decodeMessage(e.Field("message"))
	if !isMsg || msg.Role != "assistant" || msg.Usage == nil {
		return
	}
	var key string
	switch by {
	case "model":
		key = msg.Model
		if msg.Provider != "" && msg.Model != "" {
			key = msg.Provider + "/" + msg.Model
		}
	case "project":
		key = m.Cwd
	default:
		if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
			key = t.In(loc).Format(time.DateOnly)
		}
	}
	g := groups[key]
	if g == nil {
		g = &UsageRow{Key: key}
		groups[key] = g
	}
	u := msg.Usage
	g.Input += u.Input
	g.Output += u.Output
	g.CacheRead += u.CacheRead
	g.CacheWrite += u.CacheWrite
	g.Cost += u.Cost.Total
	g.Messages++
}

// usageCache keeps scanned usage until the catalog changes: the scan reads
// every file.
type usageCache struct {
	mu   sync.Mutex
	gen  uint64
	rows map[string][]UsageRow
}

func (s *Server) cachedUsage(ctx context.Context, by string, loc *time.Location) ([]UsageRow, error) {
	g, hasGen := s.cat.(interface{ Generation() uint64 })
	if !hasGen {
		return s.scanUsage(ctx, by, loc)
	}
	c := &s.usage
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen := g.Generation(); c.rows == nil || c.gen != gen {
		c.rows, c.gen = map[string][]UsageRow{}, gen
	}
	key := by + " " + loc.String()
	if rows, found := c.rows[key]; found {
		return rows, nil
	}
	rows, err := s.scanUsage(ctx, by, loc)
	if err == nil {
		c.rows[key] = rows
	}
	return rows, err
}
