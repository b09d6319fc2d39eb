// Package apitype holds the JSON shapes of piweb's HTTP API (docs/api.md):
// the bodies of requests and the answers, as Go types so that the
// contract is checked by the compiler, not spelled in map literals. It is
// data only: no behaviour, no dependency on net/http, and none on any
// piweb package. Where a domain package works with a shape the API sends
// (catalog.Item, gitx.Worktree, ...), it names the type defined here (an
// alias), so each shape has one definition that server and the typed
// client (internal/client) share.
package apitype

import (
	"encoding/json"
	"time"
)

// Status is GET /api/status.
type Status struct {
	Version  string     `json:"version"`
	SignIn   bool       `json:"signIn"`
	AgentDir string     `json:"agentDir"`
	Demo     bool       `json:"demo"`
	Pi       PiStatus   `json:"pi"`
	Index    IndexState `json:"index"`
	// RealSessions and RealAgentDir describe the user's own sessions while
	// the demo is shown.
	RealSessions *int   `json:"realSessions,omitempty"`
	RealAgentDir string `json:"realAgentDir,omitempty"`
	// CanLeave says the demo can be left from the page (POST
	// /api/demo/leave) for the user's own sessions.
	CanLeave bool `json:"canLeave,omitempty"`
	// Fleet is this machine's push to the fleet database, under serve
	// --fleet only.
	Fleet *FleetStatus `json:"fleet,omitempty"`
}

// FleetStatus is what this machine's push to the fleet says: its state
// (connecting, pushing, current, paused: a person must act, failing:
// retrying), why in words, the files waiting and the rows pushed since
// start.
type FleetStatus struct {
	Machine  string      `json:"machine"`
	State    string      `json:"state"`
	Error    string      `json:"error,omitempty"`
	Behind   int         `json:"behind"`
	LastPush time.Time   `json:"lastPush,omitzero"`
	Pushed   FleetCounts `json:"pushed"`
}

// FleetMachines is GET /api/fleet/machines: the fleet's machines by
// name and this machine's name.
type FleetMachines struct {
	Self string `json:"self"`
	// Drive: this piweb drives another machine's session on that machine
	// when it is online; else such sessions are read-only here.
	Drive    bool           `json:"drive"`
	Machines []FleetMachine `json:"machines"`
}

// FleetMachine is one machine of the fleet: the versions it runs, where
// other machines reach its piweb, what it shares, when it last pushed
// and beat.
type FleetMachine struct {
	Name          string    `json:"name"`
	PiwebVersion  string    `json:"piwebVersion"`
	PiVersion     string    `json:"piVersion"`
	Advertise     string    `json:"advertise,omitempty"`
	Share         string    `json:"share"`
	LastPush      time.Time `json:"lastPush,omitzero"`
	LastHeartbeat time.Time `json:"lastHeartbeat"`
	// Online: a heartbeat within the last two minutes (a pushing piweb
	// sends one every 30 s).
	Online   bool `json:"online"`
	Sessions int  `json:"sessions"`
}

// FleetCounts are the rows pushed since start.
type FleetCounts struct {
	Batches  int `json:"batches"`
	Sessions int `json:"sessions"`
	Deleted  int `json:"deleted"`
	Entries  int `json:"entries"`
	Lines    int `json:"lines"`
	Usage    int `json:"usage"`
}

// Leave is POST /api/demo/leave: whether piweb is switching from the demo
// to the user's own sessions.
type Leave struct {
	Leaving bool `json:"leaving"`
}

// SessionList is GET /api/sessions: a page of the listing and the number
// of sessions that match.
type SessionList struct {
	Sessions []Item `json:"sessions"`
	Total    int    `json:"total"`
	// With archived= (the page's sidebar): the matching sessions of each
	// folder, and how many matching sessions are archived.
	Projects map[string]int `json:"projects,omitempty"`
	Archived int            `json:"archived,omitempty"`
}

// ProjectList is GET /api/projects.
type ProjectList struct {
	Projects []*Project `json:"projects"`
}

// SessionDetail is GET /api/sessions/{id}.
type SessionDetail struct {
	Session  Item              `json:"session"`
	Header   json.RawMessage   `json:"header"`
	Leaf     *string           `json:"leaf"`
	Tree     []TreeNode        `json:"tree"`
	Labels   map[string]string `json:"labels"`
	Lineage  Lineage           `json:"lineage"`
	Problems []Problem         `json:"problems"`
}

// ContextPage is GET /api/sessions/{id}/context without its messages,
// which the server adds as they are (fields in the order json.Marshal
// wrote the map this replaced).
type ContextPage struct {
	Before   *string         `json:"before"`
	Edits    []ContextEdit   `json:"edits"`
	EntryIDs []string        `json:"entryIds"`
	HasMore  bool            `json:"hasMore"`
	Leaf     *string         `json:"leaf"`
	Model    json.RawMessage `json:"model"`
	Start    int             `json:"start"`
	// System is how many of the Total messages are system messages (pi
	// 1.x's prompt and its patches), which are not conversation messages.
	System        int             `json:"system"`
	ThinkingLevel json.RawMessage `json:"thinkingLevel"`
	Total         int             `json:"total"`
}

// Context is GET /api/sessions/{id}/context as a client reads it: the
// page and its messages, pi's objects as they are.
type Context struct {
	ContextPage
	Messages []json.RawMessage `json:"messages"`
}

// EntriesPage is GET /api/sessions/{id}/entries without its entries.
type EntriesPage struct {
	Before  *string `json:"before"`
	HasMore bool    `json:"hasMore"`
	Leaf    *string `json:"leaf"`
	Start   int     `json:"start"`
	Total   int     `json:"total"`
}

// Entries is GET /api/sessions/{id}/entries as a client reads it: the
// page and its entries, the lines as pi wrote them.
type Entries struct {
	EntriesPage
	Entries []json.RawMessage `json:"entries"`
}

// Search is GET /api/search. Total is the number of hits returned; More
// says that more match beyond the limit; the summary's Count says how
// many match in all, and Sessions groups the hits by session.
type Search struct {
	Hits  []Hit `json:"hits"`
	Total int   `json:"total"`
	More  bool  `json:"more"`
	SearchSummary
}

// Changes is GET /api/sessions/{id}/changes: the files the session's
// write and edit calls changed, in file order.
type Changes struct {
	Changes []FileChange `json:"changes"`
}

// Usage is GET /api/usage.
type Usage struct {
	Rows []UsageRow `json:"rows"`
	TZ   string     `json:"tz"`
}

// UsageSessions is GET /api/usage/sessions: the sessions that cost the
// most over the period, the most expensive first.
type UsageSessions struct {
	Sessions []UsageSession `json:"sessions"`
	TZ       string         `json:"tz"`
}

// UsageSession is one session's usage over the period (Usage.Key is
// empty).
type UsageSession struct {
	Session Item     `json:"session"`
	Usage   UsageRow `json:"usage"`
}

// OK is the answer of a request that has nothing else to say.
type OK struct {
	OK bool `json:"ok"`
}

// Created is POST /api/sessions: the new session's id.
type Created struct {
	ID string `json:"id"`
}

// CommandAnswer is POST /api/sessions/{id}/commands: pi's response data
// (null when it has none).
type CommandAnswer struct {
	OK   bool            `json:"ok"`
	Data json.RawMessage `json:"data"`
}

// StreamRequest is the body of POST /api/stream/subscribe and
// /api/stream/unsubscribe. After is the last id the page has of the topic
// (absent: no replay, for a page that just loaded what it shows).
type StreamRequest struct {
	Stream string `json:"stream"`
	Topic  string `json:"topic"`
	After  *int64 `json:"after,omitempty"`
}

// StreamFrame is one event of GET /api/stream: a topic's event as its own
// stream has it, with the topic's page name and the event's id (0: none).
type StreamFrame struct {
	Topic string          `json:"topic"`
	ID    uint64          `json:"id,omitempty"`
	Event json.RawMessage `json:"event"`
}
