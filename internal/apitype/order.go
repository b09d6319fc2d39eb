package apitype

import "time"

// The user's order of the sessions (issue 26.1): pins and archive, kept
// by piweb under its config dir (internal/own), never in pi's files.

// Order is GET /api/order and the answer of every change: the sessions
// pinned and archived, each with when it was. A key is a session's API
// id, or under serve --fleet another machine's session's ref
// "ID@MACHINE" as the page names it. A pinned session is listed first in
// its project; an archived one is left out of the sidebar and home (still
// searched, listed under Archived) until it is restored.
type Order struct {
	Pinned   map[string]time.Time `json:"pinned"`
	Archived map[string]time.Time `json:"archived"`
	// Rev counts the changes, as Attention.Rev: a page keeps the order of
	// the highest Rev it has, whatever order two changes' answers and
	// events reach it in.
	Rev int64 `json:"rev"`
}

// OrderChange is POST /api/order: pin or unpin, archive or restore the
// sessions of IDs at once (an absent member changes nothing).
type OrderChange struct {
	IDs      []string `json:"ids"`
	Pinned   *bool    `json:"pinned,omitempty"`
	Archived *bool    `json:"archived,omitempty"`
}

// OrderState is the index topic's "order_state" event: the whole Order
// after a change, for the user's other tabs and devices.
type OrderState struct {
	Type string `json:"type"` // "order_state"
	Order
}

// ExportRequest is POST /api/export: the sessions to download as one zip,
// each as the single export's format would give it (jsonl: the file byte
// for byte; md, html: the current branch as a document).
type ExportRequest struct {
	IDs    []string `json:"ids"`
	Format string   `json:"format"`
}
