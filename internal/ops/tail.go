package ops

import (
	"context"
	"encoding/json"

	"piweb/internal/apitype"
	"piweb/pisession"
)

// TailPage is ContextPage at the file's leaf answered from the index
// (index.Tail: the branch's rows and the page's lines) without parsing
// the file; bounds turns the context's length into the page asked for.
// ok is false when the index cannot answer exactly (the caller parses).
func (o *Ops) TailPage(ctx context.Context, path string, bounds func(n int) (start, end int, err error)) (
	out apitype.ContextPage, msgs []json.RawMessage, ok bool, err error) {
	t, done, ok, terr := o.Cat.Tail(ctx, path)
	if terr != nil || !ok {
		return out, nil, false, nil // the parse answers, and reports what is wrong with the file
	}
	defer done()
	start, end, err := bounds(t.Total)
	if err != nil {
		return out, nil, false, err
	}
	page, ids, ok := t.Page(start, end)
	if !ok {
		return out, nil, false, nil
	}
	msgs = make([]json.RawMessage, 0, len(page))
	for _, m := range page {
		msgs = append(msgs, m)
	}
	return apitype.ContextPage{Before: beforeCursor(start), Edits: []pisession.ContextEdit{}, EntryIDs: nonNil(ids),
		HasMore: start > 0, Leaf: &t.LeafID, Model: rawOrNull(t.Model), Start: start, System: t.System,
		ThinkingLevel: rawOrNull(t.ThinkingLevel), Total: t.Total}, msgs, true, nil
}
