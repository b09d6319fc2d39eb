package apitype

import "time"

// The shapes of the session listing: a session as every answer lists it,
// its fork family, its folder, a search hit, usage and the index's
// progress. catalog, index and sessionstore name these types (aliases) so
// that there is one definition of each.

// Item is the JSON shape of a session everywhere the API lists one
// (docs/api.md), this machine's or the fleet's: its Meta and what it
// takes from outside it (Links).
type Item struct {
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
	// Machine is the machine of the fleet the session lives on, in the
	// fleet's answers (?fleet=1; Path is as on that machine); this
	// machine's own answers leave it out.
	Machine string `json:"machine,omitempty"`
}

// Lineage is a session's fork family across files: its parent, every
// ancestor up to the root (parent first) and its children.
type Lineage struct {
	Parent    *Item  `json:"parent"`
	Ancestors []Item `json:"ancestors"`
	Children  []Item `json:"children"`
}

// Project is one folder sessions ran in: how many, and when the latest
// was modified.
type Project struct {
	Cwd      string  `json:"cwd"`
	Sessions int     `json:"sessions"`
	Modified *string `json:"modified"`
	// Missing is true when the folder does not exist on this machine
	// (moved, deleted, or the sessions were imported).
	Missing bool `json:"missing,omitempty"`
}

// Hit is a search hit as the API answers it, this machine's or the
// fleet's: highlights in UTF-16 code units (JavaScript's string
// indexes), the session as an Item.
type Hit struct {
	SessionID string `json:"sessionId"`
	// Machine is the session's machine in the fleet's search (?fleet=1),
	// left out in this machine's own.
	Machine         string   `json:"machine,omitempty"`
	EntryID         string   `json:"entryId"`
	Snippet         string   `json:"snippet"`
	Highlights      [][2]int `json:"highlights"`
	OnCurrentBranch bool     `json:"onCurrentBranch"`
	Role            string   `json:"role"`
	Timestamp       string   `json:"timestamp"`
	Session         Item     `json:"session"`
}

// IndexState is the index's progress, for GET /api/status.
type IndexState struct {
	Kind       string `json:"kind"`
	Ready      bool   `json:"ready"`
	TextBehind int64  `json:"textBehind"`
	Sessions   int    `json:"sessions"`
	// Temporary is true when the cache dir was unusable and the index
	// lives in a temporary dir (rebuilt at every start).
	Temporary bool `json:"temporary,omitempty"`
}

// UsageRow is one group: the tokens and cost of the assistant messages
// in it (their usage as pi recorded it) and how many there were. Key is
// the day as YYYY-MM-DD, the model as provider/id, or the project's cwd;
// it is empty for messages without an entry time or a model. Group is the
// model or project of a day's row split by one (?split=).
type UsageRow struct {
	Key        string  `json:"key"`
	Group      string  `json:"group,omitempty"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Cost       float64 `json:"cost"`
	Messages   int64   `json:"messages"`
}

// Backup is one backup file a rewrite left beside a session.
type Backup struct {
	Path    string    `json:"path"`
	Session string    `json:"session"` // the session file it was a backup of
	Time    time.Time `json:"time"`    // when it was made
	Size    int64     `json:"size"`
}

// SearchSummary is what a search answer says beside its hits (the local
// and the fleet's alike): the counts, the sessions of the hits, and the
// query as it was read.
type SearchSummary struct {
	// Count is the number of matching entries in all, beyond the hits
	// returned; CountCapped says it is a lower bound.
	Count       int  `json:"count"`
	CountCapped bool `json:"countCapped,omitempty"`
	// Partial says that the search stopped at its time budget (a word
	// found almost everywhere, a filter that few matches pass): the hits
	// are the best of the matches it read, and the count a lower bound.
	Partial bool `json:"partial,omitempty"`
	// Sessions are the sessions of the hits returned, in the order of
	// their best hit, each with its number of matches; SessionCount is
	// the number of sessions with a match.
	Sessions     []SessionCount `json:"sessions"`
	SessionCount int            `json:"sessionCount"`
	// Text is the words searched; Filters the filters applied; Warnings
	// what was left out, and why.
	Text     string         `json:"text"`
	Filters  []SearchFilter `json:"filters"`
	Warnings []string       `json:"warnings"`
}

// SessionCount is a session's number of matches; in a fleet search,
// Machine names the machine that holds it (two machines may hold one
// session id: a copied file).
type SessionCount struct {
	SessionID string `json:"sessionId"`
	Machine   string `json:"machine,omitempty"`
	Count     int    `json:"count"`
}

// SearchFilter is one filter of the search text, as the page shows it as
// a chip.
type SearchFilter struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Raw is the token as typed: the page drops the chip by removing it.
	Raw string `json:"raw"`
}
