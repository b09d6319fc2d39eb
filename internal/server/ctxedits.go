package server

import (
	"encoding/json"

	"piweb/internal/session"
)

// ContextEdit tells the page that what the model sees of an entry differs
// from the file (a context_edit in effect, pi 1.x): the entry is left out
// (Omitted, e.g. an attempt pi retried) or its content replaced (the
// context route's message already shows the replacement). Original is the
// message as written in the file, null for an entry that is not a message.
// BeforeID places an omitted entry: the context entry it precedes, null
// when it comes after the last one.
type ContextEdit struct {
	EntryID  string          `json:"entryId"`
	Omitted  bool            `json:"omitted"`
	BeforeID *string         `json:"beforeId,omitempty"`
	Original json.RawMessage `json:"original"`
}

// contextEdits returns the edits in effect that concern the page
// ids[start:end] of a context of n messages built for the path to leaf:
// replaced entries on the page and omitted ones placed on it.
func contextEdits(sess *session.Session, leaf *session.Entry, c session.Context, start, end int) []ContextEdit {
	if len(c.Edits) == 0 || leaf == nil {
		return []ContextEdit{}
	}
	onPage := map[string]bool{}
	for _, id := range c.EntryIDs[start:end] {
		onPage[id] = true
	}
	inCtx := map[string]bool{}
	for _, id := range c.EntryIDs {
		inCtx[id] = true
	}
	path := sess.PathTo(leaf)
	at := map[string]int{}
	for i, e := range path {
		at[e.ID] = i
	}
	out := []ContextEdit{}
	for _, ed := range c.Edits {
		x := ContextEdit{EntryID: ed.TargetID, Omitted: ed.Omitted, Original: json.RawMessage("null")}
		if e := sess.ByID(ed.TargetID); e != nil && e.Type == "message" {
			x.Original = e.Field("message")
		}
		if !ed.Omitted {
			if onPage[ed.TargetID] {
				out = append(out, x)
			}
			continue
		}
		i, ok := at[ed.TargetID]
		if !ok {
			continue
		}
		for _, e := range path[i+1:] {
			if inCtx[e.ID] {
				id := e.ID
				x.BeforeID = &id
				break
			}
		}
		if (x.BeforeID != nil && onPage[*x.BeforeID]) || (x.BeforeID == nil && end == len(c.EntryIDs)) {
			out = append(out, x)
		}
	}
	return out
}
