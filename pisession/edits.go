package pisession

import "encoding/json"

// ContextEdit tells the page that what the model sees of an entry differs
// from the file (a context_edit in effect, pi 1.x): the entry is left out
// (Omitted, e.g. an attempt pi retried) or its content replaced (the
// context's message already shows the replacement). Original is the
// message as written in the file, null for an entry that is not a message.
// BeforeID places an omitted entry: the context entry it precedes, null
// when it comes after the last one.
type ContextEdit struct {
	EntryID  string          `json:"entryId"`
	Omitted  bool            `json:"omitted"`
	BeforeID *string         `json:"beforeId,omitempty"`
	Original json.RawMessage `json:"original"`
}

// EditsOnPage returns the edits of c (the context built for the path to
// leaf) that concern the page c.EntryIDs[start:end]: replaced entries on
// the page and omitted ones placed on it. It is never nil.
func (s *Session) EditsOnPage(leaf *Entry, c Context, start, end int) []ContextEdit {
	out := []ContextEdit{}
	if len(c.Edits) == 0 || leaf == nil {
		return out
	}
	onPage := setOf(c.EntryIDs[start:end])
	inCtx := setOf(c.EntryIDs)
	path := s.PathTo(leaf)
	at := map[string]int{}
	for i, e := range path {
		at[e.ID] = i
	}
	for _, ed := range c.Edits {
		x := ContextEdit{EntryID: ed.TargetID, Omitted: ed.Omitted, Original: json.RawMessage("null")}
		if e := s.ByID(ed.TargetID); e != nil && e.Type == "message" {
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
		x.BeforeID = nextIn(path[i+1:], inCtx)
		if (x.BeforeID != nil && onPage[*x.BeforeID]) || (x.BeforeID == nil && end == len(c.EntryIDs)) {
			out = append(out, x)
		}
	}
	return out
}

// nextIn is the id of the first entry of path that is in set, or nil.
func nextIn(path []*Entry, set map[string]bool) *string {
	for _, e := range path {
		if set[e.ID] {
			id := e.ID
			return &id
		}
	}
	return nil
}

func setOf(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
