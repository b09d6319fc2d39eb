package index

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"

	"piweb/internal/session"
)

// listChunk is parseChunk for the listing pass: the same result (body,
// records for the metadata, problems, bytes and lines consumed) at several
// times the speed. Lines of the shapes pi writes are read by the fast
// validator and a few field lookups; any other line (invalid JSON, escaped
// keys, duplicate keys, odd value types) goes through parseChunk alone, so
// the session package stays the one definition of pi's rules. FuzzListChunk
// checks that both agree.
func listChunk(data []byte, off int64, line int, atEOF bool) (c chunk, recs []rec, msgs []*msg) {
	var members, msgMembers []span
	pos := 0
	for pos < len(data) {
		nl := bytes.IndexByte(data[pos:], '\n')
		if nl < 0 && !atEOF {
			break
		}
		end, next := pos+nl, pos+nl+1
		if nl < 0 {
			end, next = len(data), len(data)
		}
		l := data[pos:end]
		line++
		var r rec
		var m *msg
		var isEntry, ok bool
		members, msgMembers, r, m, isEntry, ok = fastLine(l, members[:0], msgMembers[:0], &c.body)
		if !ok {
			s := parseChunk(data[pos:next], off+int64(pos), line-1, atEOF)
			c.body = c.body.then(s.body)
			c.problems = append(c.problems, s.problems...)
			for _, e := range s.entries {
				var mm *msg
				if e.Type == "message" {
					d := decodeMessage(e.Field("message"), false)
					mm = &d
				}
				recs, msgs = append(recs, recOf(e)), append(msgs, mm)
			}
		} else if isEntry {
			recs, msgs = append(recs, r), append(msgs, m)
		}
		if nl >= 0 {
			c.lines++
		}
		pos = next
	}
	c.consumed = pos
	return c, recs, msgs
}

// fastLine reads one line. ok is false when the line needs the slow path;
// isEntry is false for blank lines and repeated headers.
func fastLine(l []byte, members, msgMembers []span, b *body) ([]span, []span, rec, *msg, bool, bool) {
	var r rec
	if isASCIIBlank(l) {
		return members, msgMembers, r, nil, false, true
	}
	members, msgMembers, ok := validRecord(l, members, msgMembers)
	if !ok || hasDupKey(members) {
		return members, msgMembers, r, nil, false, false
	}
	var raw struct{ typ, id, parent, ts, message, name, provider, modelID, target, label []byte }
	for _, m := range members {
		switch string(m.key) {
		case "type":
			raw.typ = m.val
		case "id":
			raw.id = m.val
		case "parentId":
			raw.parent = m.val
		case "timestamp":
			raw.ts = m.val
		case "message":
			raw.message = m.val
		case "name":
			raw.name = m.val
		case "provider":
			raw.provider = m.val
		case "modelId":
			raw.modelID = m.val
		case "targetId":
			raw.target = m.val
		case "label":
			raw.label = m.val
		}
	}
	var okAll bool
	if r.Type, okAll = plainStr(raw.typ); !okAll {
		return members, msgMembers, r, nil, false, false
	}
	if r.Type == "session" {
		return members, msgMembers, r, nil, false, true // a repeated header: not an entry, ignored by the listing
	}
	if r.ID, okAll = plainStr(raw.id); !okAll || !parentOK(raw.parent) {
		return members, msgMembers, r, nil, false, false
	}
	r.ParentID, _ = plainStr(raw.parent)
	r.HasParent = r.ParentID != ""
	if r.Timestamp, okAll = plainStr(raw.ts); !okAll {
		return members, msgMembers, r, nil, false, false
	}
	r.Provider, r.ModelID, r.Target, r.Label = str(raw.provider), str(raw.modelID), str(raw.target), str(raw.label)
	switch r.Type {
	case "session_info":
		return members, msgMembers, r, nil, true, fastName(raw.name, b)
	case "message":
		if raw.message == nil || raw.message[0] != '{' || hasDupKey(msgMembers) {
			return members, msgMembers, r, nil, true, false
		}
		m, ok := fastMessage(msgMembers, b)
		return members, msgMembers, r, m, true, ok
	}
	return members, msgMembers, r, nil, true, true
}

// plainStr decodes an absent value or a string without escapes; ok is
// false for anything else.
func plainStr(raw []byte) (string, bool) {
	if raw == nil {
		return "", true
	}
	if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

func parentOK(raw []byte) bool {
	return raw == nil || string(raw) == "null" || (len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0)
}

func isASCIIBlank(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f' {
			return false
		}
	}
	return true
}

func hasDupKey(ms []span) bool {
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			if bytes.Equal(ms[i].key, ms[j].key) {
				return true
			}
		}
	}
	return false
}

// fastName applies a session_info entry: the latest one wins, trimmed; an
// empty or missing name clears it. Anything but a string or null is left
// to the slow path.
func fastName(raw []byte, b *body) bool {
	var name string
	switch {
	case raw == nil || string(raw) == "null":
	case raw[0] == '"' && bytes.Index(raw, []byte(`\u`)) < 0:
		name = strings.TrimFunc(str(raw), isJSSpace)
	default:
		return false
	}
	if !b.Dropped {
		b.NameSet, b.Name, b.HasName = true, name, name != ""
	}
	return true
}

// fastMessage applies a message entry to the body the way pi's listing
// does, for messages of the usual shape.
func fastMessage(members []span, b *body) (*msg, bool) {
	var role, content, ts []byte
	m := msg{}
	for _, mm := range members {
		switch string(mm.key) {
		case "role":
			role = mm.val
		case "content":
			content = mm.val
		case "timestamp":
			ts = mm.val
		case "provider":
			m.provider = intern(mm.val)
		case "model":
			m.model = intern(mm.val)
		case "usage":
			m.usage = parseUsage(mm.val)
		}
	}
	dup := false
	var ok bool
	if m.role, ok = plainStr(role); dup || !ok {
		return nil, false
	}
	if b.Dropped {
		return &m, true // pi's builder ignores everything after a drop
	}
	if content == nil || (m.role != "user" && m.role != "assistant") {
		b.MessageCount++
		return &m, true
	}
	if len(ts) == 0 || !(ts[0] == '-' || ts[0] >= '0' && ts[0] <= '9') {
		return nil, false // pi falls back to Date.parse of the entry timestamp
	}
	f, err := strconv.ParseFloat(string(ts), 64)
	if err != nil {
		return nil, false
	}
	text, throws, ok := fastText(content, m.role == "user" && b.FirstMessage == "")
	if !ok {
		return nil, false
	}
	b.MessageCount++
	b.Activity = math.Max(b.Activity, f)
	if throws {
		b.Dropped = true
		return &m, true
	}
	if text != "" && m.role == "user" && b.FirstMessage == "" {
		b.FirstMessage = text
	}
	return &m, true
}

// fastText checks a message content as pi's text extraction does and, with
// want, returns the text. throws is set where pi's extraction throws (the
// file then drops out of the listing).
func fastText(content []byte, want bool) (text string, throws, ok bool) {
	switch content[0] {
	case '"':
		if !want {
			return "", false, true
		}
		if bytes.Index(content, []byte(`\u`)) >= 0 {
			return "", false, false
		}
		return str(content), false, true
	case '[':
	default:
		return "", true, true
	}
	var parts []string
	ok = true
	eachElement(content, func(el []byte) {
		if string(el) == "null" {
			throws = true
		}
		if !want || el[0] != '{' || throws {
			return
		}
		typ, txt := field(el, "type"), field(el, "text")
		if bytes.IndexByte(typ, '\\') >= 0 {
			ok = false
			return
		}
		if str(typ) != "text" {
			return
		}
		switch {
		case txt == nil || string(txt) == "null":
			parts = append(parts, "")
		case txt[0] == '"' && bytes.Index(txt, []byte(`\u`)) < 0:
			parts = append(parts, str(txt))
		default:
			ok = false
		}
	})
	return strings.Join(parts, " "), throws, ok
}

func parseUsage(v []byte) *usage {
	var u usage
	eachMember(v, func(k, val []byte) bool {
		f := func() float64 { x, _ := strconv.ParseFloat(string(val), 64); return x }
		switch string(k) {
		case `"input"`:
			u.Input = f()
		case `"output"`:
			u.Output = f()
		case `"cacheRead"`:
			u.CacheRead = f()
		case `"cacheWrite"`:
			u.CacheWrite = f()
		case `"totalTokens"`:
			u.TotalTokens = f()
		case `"cost"`:
			eachMember(val, func(k, c []byte) bool {
				if string(k) == `"total"` {
					u.Cost.Total, _ = strconv.ParseFloat(string(c), 64)
				}
				return true
			})
		}
		return true
	})
	return &u
}

// isJSSpace reports whether r is white space for JavaScript's trim.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// rec is what the metadata needs of an entry.
type rec struct {
	Type, ID, ParentID, Timestamp string
	HasParent                     bool
	Provider, ModelID             string // model_change
	Target, Label                 string // label
}

func recOf(e *session.Entry) rec {
	r := rec{Type: e.Type, ID: e.ID, ParentID: e.ParentID, Timestamp: e.Timestamp, HasParent: e.HasParent()}
	r.Provider, _ = e.String("provider")
	r.ModelID, _ = e.String("modelId")
	r.Target, _ = e.String("targetId")
	r.Label, _ = e.String("label")
	return r
}

// intern decodes a short string value, without allocating for the few
// provider and model names a corpus repeats.
func intern(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' || len(raw) > 64 {
		return str(raw)
	}
	internMu.Lock()
	defer internMu.Unlock()
	if s, ok := interned[string(raw)]; ok {
		return s
	}
	s := str(raw)
	if len(interned) < 1024 {
		interned[string(raw)] = s
	}
	return s
}

var (
	internMu sync.Mutex
	interned = map[string]string{}
)
