package server

import (
	"context"
	"encoding/json"
	"math"
	"time"
)

// Meta is one session's listing metadata, as the index keeps it.
type Meta struct {
	ID   string
	Path string
	Cwd  string
	// Name is the session name; HasName is false for an unnamed session.
	Name    string
	HasName bool
	// Created and Modified are JavaScript time values in ms, NaN when pi's
	// date is invalid.
	Created, Modified float64
	MessageCount      int
	FirstMessage      string
	// ParentPath is the header's parentSession, "" when absent.
	ParentPath string
	Size       int64
}

// ListQuery selects and orders sessions for GET /api/sessions.
type ListQuery struct {
	Project string // exact cwd, "" for all
	Text    string // case-insensitive filter over names and message text
	Sort    string // modified, created, name, messages, size
	Asc     bool
	Limit   int // 0 for all
	Offset  int
}

// SearchQuery is a full-text query for GET /api/search.
type SearchQuery struct {
	Text    string
	Project string
	Limit   int
}

// Hit is one full-text match: the entry, a plain-text snippet and the
// [start,end) byte ranges of the matched words in it.
type Hit struct {
	SessionID  string
	Path       string
	EntryID    string
	Role       string
	Timestamp  string
	Snippet    string
	Highlights [][2]int
	// OnBranch, when the catalog knows, says whether the entry is on the
	// path to the session's leaf; nil lets the server work it out.
	OnBranch *bool
}

// ChangeKind says what happened to a session file.
type ChangeKind int

const (
	Added ChangeKind = iota
	Updated
	Removed
)

// Change is one event of the index's watcher.
type Change struct {
	Kind ChangeKind
	Meta Meta
}

// Catalog is what the server needs from the index: listing, lookup, search
// and change notifications. It is an interface so that the server works
// (more slowly) over a plain directory scan when the index is unavailable,
// and so that tests can count on exact contents.
type Catalog interface {
	List(ctx context.Context, q ListQuery) ([]Meta, int, error)
	ByID(id string) (Meta, bool)
	ByPath(path string) (Meta, bool)
	// Parent returns the session m was forked or cloned from: the one at
	// m's parentSession path, else the one whose id is in that path's file
	// name (the path is stale once files are moved).
	Parent(m Meta) (Meta, bool)
	// Children returns the sessions whose Parent is the session at path.
	Children(path string) []Meta
	Search(ctx context.Context, q SearchQuery) ([]Hit, int, error)
	// Subscribe delivers changes until cancel is called. The callback must
	// not block.
	Subscribe(fn func(Change)) (cancel func())
	// Refresh re-reads one file now (after piweb itself changed it) and
	// notifies subscribers.
	Refresh(path string)
}

// sessionItem is the JSON shape of a session everywhere the API lists one.
type sessionItem struct {
	ID                string  `json:"id"`
	Path              string  `json:"path"`
	Cwd               string  `json:"cwd"`
	Name              *string `json:"name"`
	Created           *string `json:"created"`
	Modified          *string `json:"modified"`
	MessageCount      int     `json:"messageCount"`
	FirstMessage      string  `json:"firstMessage"`
	ParentSessionID   *string `json:"parentSessionId"`
	ParentSessionPath *string `json:"parentSessionPath"`
	Size              int64   `json:"size"`
	Running           bool    `json:"running"`
}

// item builds the JSON form of m, resolving the parent's id through the
// catalog.
func (s *Server) item(m Meta) sessionItem { return itemOf(m, s.links(m)) }

// itemLinks is what a session's item takes from outside its Meta.
type itemLinks struct {
	running  bool
	parentID *string // nil when there is no parent or it is not listed
}

func (s *Server) links(m Meta) itemLinks {
	l := itemLinks{running: s.agent.Running(m.Path)}
	if pm, ok := s.cat.Parent(m); ok {
		l.parentID = &pm.ID
	}
	return l
}

func (l itemLinks) equal(o itemLinks) bool {
	if l.running != o.running || (l.parentID == nil) != (o.parentID == nil) {
		return false
	}
	return l.parentID == nil || *l.parentID == *o.parentID
}

func itemOf(m Meta, l itemLinks) sessionItem {
	it := sessionItem{
		ID: m.ID, Path: m.Path, Cwd: m.Cwd, MessageCount: m.MessageCount,
		FirstMessage: m.FirstMessage, Size: m.Size,
		Created: isoTime(m.Created), Modified: isoTime(m.Modified),
		Running: l.running, ParentSessionID: l.parentID,
	}
	if m.HasName {
		it.Name = &m.Name
	}
	if m.ParentPath != "" {
		p := m.ParentPath
		it.ParentSessionPath = &p
	}
	return it
}

// isoTime writes a JavaScript time value as toISOString does, nil for NaN.
func isoTime(ms float64) *string {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return nil
	}
	t := time.UnixMilli(int64(ms)).UTC().Format("2006-01-02T15:04:05.000Z")
	return &t
}

// metaFromInfo converts the session package's listing record.
func metaFromInfo(id []byte, in sessionInfo) Meta {
	var sid string
	_ = json.Unmarshal(id, &sid)
	m := Meta{ID: sid, Path: in.Path, Cwd: in.Cwd, Name: in.Name, HasName: in.HasName,
		Created: in.Created, Modified: in.Modified, MessageCount: in.MessageCount,
		FirstMessage: in.FirstMessage}
	if in.ParentSessionPath != nil {
		_ = json.Unmarshal(in.ParentSessionPath, &m.ParentPath)
	}
	return m
}
