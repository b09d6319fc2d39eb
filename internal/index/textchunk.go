package index

import (
	"bytes"
	"math"
	"time"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// textChunk is parseChunk for the text pass, with each entry's msg
// (entryMsg). The listing's fold (the body) is taken from the message
// members msg decodes anyway instead of from pisession's InfoBuilder,
// which extracts the text of every user and assistant message for a
// listing field the index does not keep (AllMessagesText: 16 % of the
// parse). A chunk with a line this fold leaves to the InfoBuilder (a CR,
// which pi's listing reads as a line end; a message without a numeric
// timestamp; a name or first text with \u escapes; a content of an odd
// shape) has its body from Session.Info, as parseChunk's.
// FuzzListChunk checks that both agree.
// The msgs are appended to msgs, in the order of the chunk's entries.
func textChunk(data []byte, off int64, line int, atEOF, tools bool, msgs []*msg) (chunk, []*msg) {
	c, p := feedChunk(data, off, line, atEOF)
	f := listFold{slow: bytes.IndexByte(data[:c.consumed], '\r') >= 0, slab: msgSlab(c.entries)}
	for _, e := range c.entries {
		msgs = append(msgs, f.entry(e, tools))
	}
	if f.slow {
		c.body = parsedBody(c.body, p)
		return c, msgs
	}
	c.body.Dropped = f.b.Dropped
	if !f.b.Dropped {
		c.body.MessageCount, c.body.FirstMessage, c.body.Activity = f.b.MessageCount, f.b.FirstMessage, f.b.Activity
		c.body.Name, c.body.HasName = f.b.Name, f.b.HasName
	}
	return c, msgs
}

// listFold is pisession.InfoBuilder's fold of the entries of a chunk
// behind the synthetic header (only messages and session_info entries
// count), where it can be done without it; slow is set where it cannot.
type listFold struct {
	b    body
	slow bool
	slab []msg // the messages' msgs, handed out in turn
}

// msgSlab returns room for the msgs of the message entries among
// entries, in one allocation instead of one each.
func msgSlab(entries []*pisession.Entry) []msg {
	n := 0
	for _, e := range entries {
		if e.Type == "message" {
			n++
		}
	}
	return make([]msg, n)
}

// entry decodes e's msg (entryMsg) and folds e in.
func (f *listFold) entry(e *pisession.Entry, tools bool) *msg {
	switch e.Type {
	case "message":
		var r msgMembers
		r.ofEntry(e)
		m := &f.slab[0]
		f.slab = f.slab[1:]
		m.set(&r, true, tools)
		if !f.slow && !f.b.Dropped {
			f.message(e, &r, m.Role)
		}
		return m
	case "session_info":
		if !f.slow && !f.b.Dropped {
			f.slow = !fastName(e.Field("name"), &f.b)
		}
	}
	return entryMsg(e, tools)
}

// message is InfoBuilder's addMessage for the message entry e with the
// message members r and the role.
func (f *listFold) message(e *pisession.Entry, r *msgMembers, role string) {
	f.b.MessageCount++
	raw := e.Field("message")
	switch {
	case raw == nil || string(raw) == "null":
		f.b.Dropped = true // pi reads .role of undefined
		return
	case raw[0] != '{' || r.content == nil || role != pisession.RoleUser && role != pisession.RoleAssistant:
		return
	}
	ts := r.timestamp
	if len(ts) == 0 || !(ts[0] == '-' || ts[0] >= '0' && ts[0] <= '9') {
		f.slow = true // pi falls back to the entry's timestamp as a Date
		return
	}
	n, _ := parseNumber(ts) // ParseFloat's value, whatever its error
	f.b.Activity = math.Max(f.b.Activity, pisession.Finite(n))
	content := r.content
	switch {
	case content[0] == '"':
	case content[0] != '[' || hasNull(content):
		f.b.Dropped = true // pi's text extraction throws
		return
	}
	if role != pisession.RoleUser || f.b.FirstMessage != "" {
		return // only the first user text is kept
	}
	text, ok := fastText(content)
	f.slow = !ok
	f.b.FirstMessage = text
}

// hasNull reports whether the JSON array arr has a null element.
func hasNull(arr []byte) bool {
	for el := range jsjson.Elements(arr) {
		if el[0] == 'n' {
			return true
		}
	}
	return false
}

// parsedBody is b with the listing's fold of the chunk p parsed, from
// pisession's InfoBuilder (parseChunk's).
func parsedBody(b body, p *pisession.Parser) body {
	info, ok := p.S().Info("", time.UnixMilli(0))
	b.Dropped = !ok
	if ok {
		b.MessageCount = info.MessageCount
		if info.FirstMessage != pisession.NoMessages {
			b.FirstMessage = info.FirstMessage
		}
		b.Name, b.HasName = info.Name, info.HasName
		b.Activity = info.Activity
	}
	return b
}

// textRec is recOf with only the members meta.add reads of e's type
// (recOf looks up six for every entry).
func textRec(e *pisession.Entry) rec {
	r := rec{Type: e.Type, ID: e.ID, ParentID: e.ParentID, Timestamp: e.Timestamp, HasParent: e.HasParent()}
	switch e.Type {
	case "label":
		r.Target, _ = e.String("targetId")
		r.Label, _ = e.String("label")
	case "model_change":
		r.Provider, _ = e.String("provider")
		r.ModelID, _ = e.String("modelId")
	case "usage":
		r.Provider, _ = e.String("provider")
		r.Model, _ = e.String("model")
		r.Usage = e.Field("usage")
	case "compaction", "branch_summary":
		r.Usage = e.Field("usage")
	}
	return r
}
