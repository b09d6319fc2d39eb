package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/index"
	"piweb/internal/jsjson"
)

// hit is a search hit as the model gets it.
type hit struct {
	SessionID string `json:"sessionId"`
	Project   string `json:"project"`
	EntryID   string `json:"entryId"`
	Role      string `json:"role"`
	Model     string `json:"model,omitempty"`
	Time      string `json:"time,omitempty"`
	OnBranch  bool   `json:"onCurrentBranch"`
	// Snippet has the matched words in **bold**.
	Snippet string `json:"snippet"`
}

type searchAnswer struct {
	Hits []hit `json:"hits"`
	// Total counts every match; TotalIsAtLeast says counting stopped.
	Total          int      `json:"total"`
	TotalIsAtLeast bool     `json:"totalIsAtLeast,omitempty"`
	Partial        bool     `json:"partial,omitempty"`
	Warnings       []string `json:"warnings,omitempty"`
}

func (s *Server) search(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		Query *string `json:"query"`
		Limit *int    `json:"limit"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Query == nil {
		return nil, errors.New("query is required")
	}
	if len(*a.Query) > MaxQuery {
		return nil, fmt.Errorf("query is longer than %d bytes", MaxQuery)
	}
	limit, err := bound("limit", a.Limit, 10, 1, MaxHits)
	if err != nil {
		return nil, err
	}
	q, ok, warnings, err := catalog.QueryOver(ctx, s.o.Index, *a.Query, s.o.Loc)
	if err != nil {
		return nil, err
	}
	out := searchAnswer{Hits: []hit{}, Warnings: warnings}
	if !ok {
		return out, nil
	}
	q.Limit = limit
	ans, err := s.o.Index.Answer(ctx, q)
	if err != nil {
		return nil, err
	}
	out.Total, out.TotalIsAtLeast, out.Partial = ans.Counts.Total, ans.Counts.Capped || ans.Counts.Partial, ans.Partial
	for _, h := range ans.Hits {
		out.Hits = append(out.Hits, hit{SessionID: h.SessionID, Project: h.Cwd, EntryID: h.EntryID, Role: h.Role,
			Model: h.Model, Time: s.msTime(float64(h.Timestamp)), OnBranch: h.OnBranch, Snippet: snippet(h.Snippet)})
	}
	return out, nil
}

// snippet joins spans, the matches in **bold**.
func snippet(spans []index.Span) string {
	var b strings.Builder
	for _, sp := range spans {
		if sp.Match {
			b.WriteString("**" + sp.Text + "**")
		} else {
			b.WriteString(sp.Text)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// msTime is a time in ms since the epoch in RFC 3339, "" for none.
func (s *Server) msTime(ms float64) string {
	if ms == 0 || math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > 8.64e15 {
		return ""
	}
	return time.UnixMilli(int64(ms)).In(s.o.Loc).Format(time.RFC3339)
}

// listed is a session as list_sessions gives it.
type listed struct {
	SessionID    string   `json:"sessionId"`
	Name         string   `json:"name,omitempty"`
	Project      string   `json:"project"`
	Created      string   `json:"created,omitempty"`
	Modified     string   `json:"modified,omitempty"`
	Messages     int      `json:"messages"`
	FirstMessage string   `json:"firstMessage,omitempty"`
	Models       []string `json:"models,omitempty"`
}

type listAnswer struct {
	Sessions []listed `json:"sessions"`
	Total    int      `json:"total"`
	// Next is the offset of the next page, absent at the end.
	Next *int `json:"next,omitempty"`
}

// firstChars bounds a listed session's first message.
const firstChars = 300

func (s *Server) listSessions(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		Project *string `json:"project"`
		Limit   *int    `json:"limit"`
		Offset  *int    `json:"offset"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	limit, err := bound("limit", a.Limit, 20, 1, 100)
	if err != nil {
		return nil, err
	}
	offset, err := bound("offset", a.Offset, 0, 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	metas, err := s.listedSessions(ctx, a.Project)
	if err != nil {
		return nil, err
	}
	out := listAnswer{Sessions: []listed{}, Total: len(metas)}
	for _, m := range metas[min(offset, len(metas)):min(offset+limit, len(metas))] {
		out.Sessions = append(out.Sessions, listed{SessionID: m.SessionID, Name: m.Info.Name, Project: m.Info.Cwd,
			Created: s.msTime(m.Info.Created), Modified: s.msTime(m.LastActivity), Messages: m.Info.MessageCount,
			FirstMessage: jsjson.Cut(m.Info.FirstMessage, firstChars), Models: m.Models})
	}
	if next := offset + limit; next < len(metas) {
		out.Next = &next
	}
	return out, nil
}

// listedSessions are the sessions pi lists, of project when not nil,
// newest activity first.
func (s *Server) listedSessions(ctx context.Context, project *string) ([]index.Meta, error) {
	all, err := s.o.Index.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	var cwds []string
	for _, m := range all {
		cwds = append(cwds, m.Info.Cwd)
	}
	keep := map[string]bool{}
	if project != nil {
		for _, c := range catalog.MatchProjects(cwds, []string{*project}) {
			keep[c] = true
		}
		if len(keep) == 0 {
			return nil, fmt.Errorf("no project is named %q; projects are named by their folder's name or path: %s",
				*project, strings.Join(someProjects(cwds), ", "))
		}
	}
	var out []index.Meta
	for _, m := range all {
		if m.Listed && m.SessionID != "" && (project == nil || keep[m.Info.Cwd]) {
			out = append(out, m)
		}
	}
	return out, nil
}

// someProjects are the first few distinct cwds.
func someProjects(cwds []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cwds {
		if !seen[c] && len(out) < 20 {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// findSession is the indexed session with id, or the one whose id starts
// with it.
func (s *Server) findSession(ctx context.Context, id string) (index.Meta, error) {
	if len(id) < 4 {
		return index.Meta{}, errors.New("sessionId must be a session's id or a prefix of it of 4 characters or more")
	}
	all, err := s.o.Index.Sessions(ctx)
	if err != nil {
		return index.Meta{}, err
	}
	var found []index.Meta
	for _, m := range all {
		if m.SessionID == id {
			return m, nil
		}
		if strings.HasPrefix(m.SessionID, id) {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return index.Meta{}, fmt.Errorf("no session has the id %q", id)
	case 1:
		return found[0], nil
	}
	return index.Meta{}, fmt.Errorf("%d sessions have ids starting with %q: give more of the id", len(found), id)
}
