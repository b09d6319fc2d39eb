// Package catalog is piweb's in-memory listing of sessions over the SQLite
// index: listing, lookup by API id or path, fork lineage, search, usage and
// change notifications. A request never waits for SQLite or for a big file
// being indexed: answers come from a snapshot that is reloaded, one reload
// at a time, when the index reports a change.
//
// Every listed file is its own session. Its API id (Meta.Key) is the
// header id, except for copies that share a header id with another listed
// file: the canonical file of the group keeps the header id and each other
// copy gets the header id with a suffix derived from its path (see
// keyOf), so ids are unique in the listing and stable across restarts.
package catalog

import (
	"math"
	"strings"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/index"
	"piweb/internal/jsjson"
)

// Meta is one session's listing metadata, as the index keeps it.
type Meta struct {
	// Key is the session's id in the API: unique in the listing (see the
	// package comment). ID is the header id, shared by copies of a file.
	Key  string
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
	// FirstMessage is pi's, cut to MaxFirstMessage bytes.
	FirstMessage string
	// ParentPath is the header's parentSession, "" when absent.
	ParentPath string
	Size       int64
}

// ListQuery selects and orders sessions for GET /api/sessions.
type ListQuery struct {
	Project string // exact cwd, "" for all
	Text    string // case-insensitive filter over names, message text, folders and id prefixes
	Sort    string // modified, created, name, messages, size
	Asc     bool
	Limit   int // 0 for all
	Offset  int
	// Keep, when set, leaves out the sessions it refuses (the page's
	// archive); First, when set, puts the sessions it accepts before the
	// others, each part in the sort's order (the page's pins), so that a
	// page of the listing holds all of them.
	Keep, First func(Meta) bool
	// Counts asks for Listed.Projects.
	Counts bool
}

// Listed is one page of the listing: its sessions, how many matched
// before paging, and, when asked (ListQuery.Counts), how many of them
// each folder holds.
type Listed struct {
	Metas    []Meta
	Total    int
	Projects map[string]int
	// Left counts the sessions that matched but Keep left out.
	Left int
}

// SearchQuery is a full-text query for GET /api/search: the words of Text
// and the filters ParseSearch read from the search box.
type SearchQuery struct {
	Text string
	// Project is an exact cwd (the project= parameter); Projects are
	// project: filters, each a cwd or a folder's base name.
	Project  string
	Projects []string
	Limit    int
	// From <= an entry's time < To; zero is open.
	From, To time.Time
	// Roles are SearchRoles keys; Model a "provider/id" or an id.
	Roles []string
	Model string
	// Branch is "", "all", "current" or "abandoned".
	Branch string
	// Filters are the filters as the page shows them; Warnings say what
	// of the text was left out, and why.
	Filters  []Filter
	Warnings []string
}

// Hit is one full-text match: the session, the entry, a plain-text
// snippet and the [start,end) byte ranges of the matched words in it.
type Hit struct {
	Session    Meta
	EntryID    string
	Role       string
	Timestamp  string
	Snippet    string
	Highlights [][2]int
	// OnBranch says whether the entry is on the path to the session's leaf.
	OnBranch bool
}

// ChangeKind says what happened to a session file.
type ChangeKind int

// The kinds of Change.
const (
	Added ChangeKind = iota
	Updated
	Removed
)

// Change is one change of the listing, published on the catalog's
// changes topic (Changes).
type Change struct {
	Kind ChangeKind
	Meta Meta
}

// Stamp returns c unchanged: changes need no number (broker.Payload).
func (c Change) Stamp(string, uint64, time.Time) Change { return c }

// Size approximates c's memory for the replay bound.
func (c Change) Size() int {
	return 64 + len(c.Meta.Path) + len(c.Meta.FirstMessage) + len(c.Meta.Name)
}

// MaxFirstMessage is the most of a session's first message the listing
// keeps: pi's listing has all of it, but a pasted log of tens of MB would
// be held twice by the listing and sent with every page of it (issue 21);
// the page shows a line of it.
const MaxFirstMessage = 8 << 10

// firstMessage cuts s to MaxFirstMessage bytes at a rune start.
func firstMessage(s string) string {
	if len(s) <= MaxFirstMessage {
		return s
	}
	return strings.Clone(jsjson.Cut(s, MaxFirstMessage))
}

// UsageRow is one group of GET /api/usage (see index.UsageRow).
type UsageRow = index.UsageRow

// UsageQuery asks for usage by day (in a zone), model or project.
type UsageQuery = index.UsageQuery

// State is the index's progress, for GET /api/status (apitype.IndexState, where
// the API's shapes are defined).
type State = apitype.IndexState

// ISOTime writes a JavaScript time value as toISOString does, nil for NaN.
func ISOTime(ms float64) *string {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return nil
	}
	t := time.UnixMilli(int64(ms)).UTC().Format("2006-01-02T15:04:05.000Z")
	return &t
}

// DisplayName is the name the listing sorts by: the session name, else
// its first message.
func DisplayName(m Meta) string {
	if m.HasName {
		return m.Name
	}
	return m.FirstMessage
}

// Same compares listings, counting two invalid (NaN) dates as equal.
func Same(a, b Meta) bool {
	nan := func(x, y float64) bool { return x == y || (x != x && y != y) }
	ac, bc := a, b
	ac.Created, ac.Modified, bc.Created, bc.Modified = 0, 0, 0, 0
	return ac == bc && nan(a.Created, b.Created) && nan(a.Modified, b.Modified)
}

// Page returns the page of xs at offset with at most limit items (0: all).
func Page[T any](xs []T, offset, limit int) []T {
	if offset >= len(xs) {
		return []T{}
	}
	xs = xs[offset:]
	if limit > 0 && limit < len(xs) {
		xs = xs[:limit]
	}
	return xs
}
