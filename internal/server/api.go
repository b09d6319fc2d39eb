package server

import (
	"encoding/json"

	"piweb/internal/agent"
	"piweb/internal/catalog"
	"piweb/internal/session"
)

// The JSON shapes of the API's answers (docs/api.md), as Go types so that
// the contract is checked by the compiler, not spelled in map literals.

// statusAnswer is GET /api/status.
type statusAnswer struct {
	Version  string         `json:"version"`
	SignIn   bool           `json:"signIn"`
	AgentDir string         `json:"agentDir"`
	Demo     bool           `json:"demo"`
	Pi       agent.PiStatus `json:"pi"`
	Index    catalog.State  `json:"index"`
	// RealSessions and RealAgentDir describe the user's own sessions while
	// the demo is shown.
	RealSessions *int   `json:"realSessions,omitempty"`
	RealAgentDir string `json:"realAgentDir,omitempty"`
	// CanLeave says the demo can be left from the page (POST
	// /api/demo/leave) for the user's own sessions.
	CanLeave bool `json:"canLeave,omitempty"`
}

// leaveAnswer is POST /api/demo/leave: whether piweb is switching from
// the demo to the user's own sessions.
type leaveAnswer struct {
	Leaving bool `json:"leaving"`
}

type projectList struct {
	Projects []*catalog.Project `json:"projects"`
}

// sessionDetail is GET /api/sessions/{id}.
type sessionDetail struct {
	Session  catalog.Item       `json:"session"`
	Header   json.RawMessage    `json:"header"`
	Leaf     *string            `json:"leaf"`
	Tree     []session.TreeNode `json:"tree"`
	Labels   map[string]string  `json:"labels"`
	Lineage  catalog.Lineage    `json:"lineage"`
	Problems []session.Problem  `json:"problems"`
}

// contextPage is GET /api/sessions/{id}/context without its messages,
// which okVerbatim adds as they are (fields in the order json.Marshal
// wrote the map this replaced).
type contextPage struct {
	Before   *string               `json:"before"`
	Edits    []session.ContextEdit `json:"edits"`
	EntryIDs []string              `json:"entryIds"`
	HasMore  bool                  `json:"hasMore"`
	Leaf     *string               `json:"leaf"`
	Model    json.RawMessage       `json:"model"`
	Start    int                   `json:"start"`
	// System is how many of the Total messages are system messages (pi
	// 1.x's prompt and its patches), which are not conversation messages.
	System        int             `json:"system"`
	ThinkingLevel json.RawMessage `json:"thinkingLevel"`
	Total         int             `json:"total"`
}

// entriesPage is GET /api/sessions/{id}/entries without its entries.
type entriesPage struct {
	Before  *string `json:"before"`
	HasMore bool    `json:"hasMore"`
	Leaf    *string `json:"leaf"`
	Start   int     `json:"start"`
	Total   int     `json:"total"`
}

// searchAnswer is GET /api/search. Total is the number of hits returned;
// More says that more match beyond the limit (the count is "at least").
type searchAnswer struct {
	Hits  []catalog.HitJSON `json:"hits"`
	Total int               `json:"total"`
	More  bool              `json:"more"`
}

// sessionAnswer is the answer of the mutations that report the session
// (rename, restore); Session is null when it is not listed.
type sessionAnswer struct {
	Session *catalog.Item `json:"session"`
}

// labelAnswer is POST /api/sessions/{id}/label.
type labelAnswer struct {
	Session *catalog.Item     `json:"session"`
	Labels  map[string]string `json:"labels"`
}

// deleteAnswer is DELETE /api/sessions/{id}.
type deleteAnswer struct {
	TrashID string       `json:"trashId"`
	Session catalog.Item `json:"session"`
}

// trashItem is one item of GET /api/trash.
type trashItem struct {
	TrashID string       `json:"trashId"`
	Deleted string       `json:"deleted"`
	Session catalog.Item `json:"session"`
}

type trashList struct {
	Items []trashItem `json:"items"`
}

// newSessionAnswer is the answer of fork and clone: the new session, and
// for a fork the text of the message it was made before.
type newSessionAnswer struct {
	ID   string  `json:"id"`
	Path string  `json:"path"`
	Text *string `json:"text,omitempty"`
}

// usageAnswer is GET /api/usage.
type usageAnswer struct {
	Rows []UsageRow `json:"rows"`
	TZ   string     `json:"tz"`
}

// okAnswer is the answer of a request that has nothing else to say.
type okAnswer struct {
	OK bool `json:"ok"`
}

// createdAnswer is POST /api/sessions: the new session's id.
type createdAnswer struct {
	ID string `json:"id"`
}

// commandAnswer is POST /api/sessions/{id}/commands: pi's response data
// (null when it has none).
type commandAnswer struct {
	OK   bool            `json:"ok"`
	Data json.RawMessage `json:"data"`
}
