package server

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"piweb/internal/session"
)

// UsageRow is one group of GET /api/usage.
type UsageRow struct {
	Key        string  `json:"key"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Cost       float64 `json:"cost"`
	Messages   int     `json:"messages"`
}

// UsageSource is implemented by catalogs that aggregate usage themselves
// (the SQLite index); others are scanned file by file.
type UsageSource interface {
	Usage(ctx context.Context, by string) ([]UsageRow, error)
}

func (s *Server) getUsage(w http.ResponseWriter, r *http.Request) error {
	by := r.URL.Query().Get("by")
	if by == "" {
		by = "day"
	}
	if by != "day" && by != "model" && by != "project" {
		return errorf(Invalid, "by must be day, model or project")
	}
	var rows []UsageRow
	var err error
	if us, isSource := s.cat.(UsageSource); isSource {
		rows, err = us.Usage(r.Context(), by)
	} else {
		rows, err = s.cachedUsage(r.Context(), by)
	}
	if err != nil {
		return wrap(Internal, err, "cannot compute usage")
	}
	return ok(w, map[string]any{"rows": rows})
}

// scanUsage reads every session's assistant messages.
func (s *Server) scanUsage(ctx context.Context, by string) ([]UsageRow, error) {
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
			addUsage(groups, by, m, e)
		}
	}
	rows := make([]UsageRow, 0, len(groups))
	for _, g := range groups {
		rows = append(rows, *g)
	}
	slices.SortFunc(rows, func(a, b UsageRow) int { return cmp.Compare(a.Key, b.Key) })
	return rows, nil
}

func addUsage(groups map[string]*UsageRow, by string, m Meta, e *session.Entry) {
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
		key = msg.Provider + "/" + msg.Model
	case "project":
		key = m.Cwd
	default:
		ms, _ := strconv.ParseFloat(string(msg.Timestamp), 64)
		key = time.UnixMilli(int64(ms)).UTC().Format("2006-01-02")
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

func (s *Server) cachedUsage(ctx context.Context, by string) ([]UsageRow, error) {
	g, hasGen := s.cat.(interface{ Generation() uint64 })
	if !hasGen {
		return s.scanUsage(ctx, by)
	}
	c := &s.usage
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen := g.Generation(); c.rows == nil || c.gen != gen {
		c.rows, c.gen = map[string][]UsageRow{}, gen
	}
	if rows, found := c.rows[by]; found {
		return rows, nil
	}
	rows, err := s.scanUsage(ctx, by)
	if err == nil {
		c.rows[by] = rows
	}
	return rows, err
}
