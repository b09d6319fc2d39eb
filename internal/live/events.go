package live

import (
	"encoding/json"

	"piweb/internal/catalog"
)

// The events the relay publishes (docs/api.md), as Go types.

// eventType is an event with nothing but its type.
type eventType struct {
	Type string `json:"type"`
}

// sessionHello is the first event of a session's topic: the session as
// it is now, its worker's phase, the leaf and size of the file as read,
// the server's clock (ms) and, mid-run, the number to replay from to see
// the message being streamed.
type sessionHello struct {
	Type       string       `json:"type"`
	Session    catalog.Item `json:"session"`
	Worker     string       `json:"worker"`
	Leaf       *string      `json:"leaf"`
	Size       int64        `json:"size"`
	Now        int64        `json:"now"`
	ReplayFrom uint64       `json:"replayFrom,omitempty"`
}

// sessionChanged is session_added and session_updated on the index topic.
type sessionChanged struct {
	Type    string       `json:"type"`
	Session catalog.Item `json:"session"`
}

// runningEvent tells the index topic that a session's worker started or
// stopped working.
type runningEvent struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Running bool   `json:"running"`
}

// sessionRemoved is session_removed on the index topic.
type sessionRemoved struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Path string `json:"path"`
}

// entriesAppended is a session's growth on its topic: the lines appended,
// verbatim, the id of the last entry among them and the file offset after
// them.
type entriesAppended struct {
	Type    string            `json:"type"`
	Entries []json.RawMessage `json:"entries"`
	Leaf    *string           `json:"leaf"`
	Size    int64             `json:"size"`
}

// sessionRewritten tells a session's clients to reload it.
type sessionRewritten struct {
	Type string `json:"type"`
	Size int64  `json:"size"`
}
