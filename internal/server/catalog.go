package server

import "piweb/internal/catalog"

// The catalog's types, named here for the handlers.
type (
	Meta        = catalog.Meta
	ListQuery   = catalog.ListQuery
	SearchQuery = catalog.SearchQuery
	Hit         = catalog.Hit
	Change      = catalog.Change
	UsageRow    = catalog.UsageRow
	UsageQuery  = catalog.UsageQuery
)

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
		l.parentID = &pm.Key
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
		ID: m.Key, Path: m.Path, Cwd: m.Cwd, MessageCount: m.MessageCount,
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
func isoTime(ms float64) *string { return catalog.ISOTime(ms) }
