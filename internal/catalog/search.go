package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/index"
)

// SearchResult is a search's ranked hits and its counts.
type SearchResult struct {
	// Hits are at most the query's limit; More says that more match.
	Hits []Hit
	More bool
	// Count is the number of matching entries in all, and BySession per
	// session (by path, listed sessions only); CountCapped says that the
	// counting stopped at the index's cap (the counts are lower bounds).
	Count       int
	CountCapped bool
	BySession   map[string]int
	// Partial says that the search stopped at its time budget: the hits
	// are the best of the matches read, the counts lower bounds.
	Partial bool
	// Warnings are the query's, and what the search itself left out.
	Warnings []string
}

// Search is the index's ranked, branch-aware search (current-branch hits
// first), narrowed by q's filters, with every match counted; hits in
// files that are not listed are left out.
func (c *Catalog) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	out := SearchResult{Hits: []Hit{}, BySession: map[string]int{}, Warnings: q.Warnings}
	if c.ix == nil {
		return out, nil
	}
	iq, ok, warn := c.indexQuery(q)
	if warn != "" {
		out.Warnings = append(out.Warnings, warn)
	}
	if !ok {
		return out, nil
	}
	a, err := c.ix.Answer(ctx, iq)
	if err != nil {
		return out, errs.E("catalog.Search", errs.Internal, "search failed", err)
	}
	counts := a.Counts
	out.Partial = a.Partial
	for _, p := range a.Wide {
		out.Warnings = append(out.Warnings, index.WideNote(p))
	}
	for _, h := range a.Hits {
		if m, listed := c.ByPath(h.Path); listed {
			out.Hits = append(out.Hits, hitOf(m, h))
		}
	}
	if q.Limit > 0 && len(out.Hits) > q.Limit {
		out.Hits, out.More = out.Hits[:q.Limit], true
	}
	out.CountCapped = counts.Capped || counts.Partial
	for path, n := range counts.ByPath {
		if _, listed := c.ByPath(path); listed {
			out.Count += n
			out.BySession[path] = n
		}
	}
	return out, nil
}

// indexQuery is q for the index (IndexQuery) with the listed projects.
func (c *Catalog) indexQuery(q SearchQuery) (iq index.Query, ok bool, warn string) {
	return IndexQuery(q, c.ix.Tools(), c.projectCwds)
}

// IndexQuery is q for the index: one more hit than the limit (to tell
// that there are more), project names resolved to cwds by projects
// (MatchProjects over the sessions' cwds), roles to the message roles of
// an index that holds tool output or not (tools). ok is false when no
// project matches, or the roles asked for are not indexed (warn says
// which).
func IndexQuery(q SearchQuery, tools bool, projects func(names []string) []string) (iq index.Query, ok bool, warn string) {
	iq = index.Query{Text: q.Text, Cwd: q.Project, Model: q.Model, From: q.From, To: q.To, Limit: q.Limit + 1}
	for _, r := range q.Roles {
		if r == "tool" && !tools {
			warn = "role: tool output is not in this search index (piweb index --tools builds one that holds it)"
			if len(q.Roles) == 1 {
				return iq, false, warn
			}
			continue
		}
		iq.Roles = append(iq.Roles, SearchRoles[r]...)
	}
	switch q.Branch {
	case "current":
		iq.Branch = index.CurrentBranch
	case "abandoned":
		iq.Branch = index.Abandoned
	}
	if len(q.Projects) == 0 {
		return iq, true, warn
	}
	iq.Cwds = projects(q.Projects)
	if len(iq.Cwds) == 0 {
		return iq, false, fmt.Sprintf("project: no project is named %s", strings.Join(q.Projects, " or "))
	}
	return iq, true, warn
}

// projectCwds are the listed cwds a project: filter names.
func (c *listing) projectCwds(names []string) []string {
	c.mu.RLock()
	cwds := make([]string, 0, len(c.byPath))
	for _, e := range c.byPath {
		cwds = append(cwds, e.meta.Cwd)
	}
	c.mu.RUnlock()
	return MatchProjects(cwds, names)
}

// MatchProjects are the cwds, each once, that project: filters name: the
// cwd itself, or a folder whose base name is the name (any case).
func MatchProjects(cwds, names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, cwd := range cwds {
		if seen[cwd] {
			continue
		}
		for _, n := range names {
			if cwd == n || strings.EqualFold(filepath.Base(cwd), n) {
				seen[cwd] = true
				out = append(out, cwd)
				break
			}
		}
	}
	return out
}

// SearchSummary is what a search answer says beside its hits
// (apitype.SearchSummary, where the API's shapes are defined).
type SearchSummary = apitype.SearchSummary

// SessionCount is a session's number of matches (apitype.SessionCount).
type SessionCount = apitype.SessionCount

// Summary is r's summary for q.
func (r SearchResult) Summary(q SearchQuery) SearchSummary {
	s := SearchSummary{Count: r.Count, CountCapped: r.CountCapped, Partial: r.Partial, SessionCount: len(r.BySession), Text: q.Text,
		Filters: q.Filters, Warnings: r.Warnings, Sessions: []SessionCount{}}
	seen := map[string]bool{}
	for _, h := range r.Hits {
		if !seen[h.Session.Path] {
			seen[h.Session.Path] = true
			s.Sessions = append(s.Sessions, SessionCount{SessionID: h.Session.Key, Count: r.BySession[h.Session.Path]})
		}
	}
	return orEmpty(s)
}

// orEmpty makes nil lists [] in JSON.
func orEmpty(s SearchSummary) SearchSummary {
	if s.Filters == nil {
		s.Filters = []Filter{}
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	if s.Sessions == nil {
		s.Sessions = []SessionCount{}
	}
	return s
}

// QueryOver is text's search for ix as the commands that answer from the
// index alone run it (piweb search, piweb mcp): the filters read by
// ParseSearch (dates in loc), project names matched over the indexed
// sessions' cwds, roles to what ix holds. ok is false when nothing can
// match; warnings say what of the text was left out, and why.
func QueryOver(ctx context.Context, ix *index.Index, text string, loc *time.Location) (q index.Query, ok bool, warnings []string, err error) {
	sq := ParseSearch(text, loc)
	var cwds []string
	if len(sq.Projects) > 0 {
		metas, err := ix.Sessions(ctx)
		if err != nil {
			return q, false, nil, err
		}
		for _, m := range metas {
			cwds = append(cwds, m.Info.Cwd)
		}
	}
	q, ok, warn := IndexQuery(sq, ix.Tools(), func(names []string) []string { return MatchProjects(cwds, names) })
	warnings = sq.Warnings
	if warn != "" {
		warnings = append(warnings, warn)
	}
	return q, ok, warnings, nil
}
