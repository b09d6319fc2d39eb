package server

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
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
		rows, err = s.scanUsage(r.Context(), by)
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
