package index

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// listChunk is parseChunk for the listing pass: the same result (body,
// problems, bytes and lines consumed, and each entry's record and message
// given to each, which may be nil and must not keep m) at several times
// the speed. Lines of the shapes pi writes are read by the fast validator
// and a few field lookups; any other line (invalid JSON, escaped keys,
// duplicate keys, odd value types) goes through parseChunk alone, so the
// session package stays the one definition of pi's rules. FuzzListChunk
// checks that both agree.
func listChunk(data []byte, off int64, line int, atEOF bool, each func(r rec, m *msg)) (c chunk) {
	rv := records.Get().(*record) // its member lists grow once, not per piece
	defer records.Put(rv)
	var m msg
	var u pisession.Usage
	pos := 0
	for pos < len(data) {
		end, ok := rv.scan(data, pos)
		if !ok || end == len(data) && !atEOF {
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 && !atEOF {
				break
			}
			end, ok = pos+nl, false
			if nl < 0 {
				end = len(data)
			}
		}
		line++
		var r rec
		var isEntry bool
		if ok {
			m, u = msg{}, pisession.Usage{}
			mp := &m
			if each == nil {
				mp = nil // the listing alone: no message fields to fill
			}
			r, isEntry, ok = fastLine(rv, mp, &u, &c.body)
		} else if isASCIIBlank(data[pos:end]) {
			ok = true // a blank line: no entry
		}
		next := min(end+1, len(data))
		switch {
		case !ok:
			c.slowLine(data[pos:next], off+int64(pos), line, atEOF, each)
		case isEntry && each != nil && r.Type == "message":
			each(r, &m)
		case isEntry && each != nil:
			each(r, nil)
		}
		if end < len(data) {
			c.lines++
		}
		pos = next
	}
	c.consumed = pos
	return c
}

// slowLine parses one line with the session parser.
func (c *chunk) slowLine(l []byte, off int64, line int, atEOF bool, each func(r rec, m *msg)) {
	s := parseChunk(l, off, line-1, atEOF)
	c.body = c.body.then(s.body)
	c.problems = append(c.problems, s.problems...)
	for _, e := range s.entries {
		if each == nil {
			break // the listing alone: the body is all
		}
		var mm *msg
		if e.Type == "message" {
			mm = new(msg)
			mm.decodeEntry(e, false, false)
		}
		each(recOf(e), mm)
	}
}

// fastLine reads the fields of a valid line (only its validity and the
// body's part when m is nil: the listing alone). ok is false when the line
// needs the slow path; isEntry is false for repeated headers.
func fastLine(rv *record, m *msg, u *pisession.Usage, b *body) (r rec, isEntry, ok bool) {
	if hasDupKey(rv.members) {
		return r, false, false
	}
	var raw struct{ typ, id, parent, ts, message, name, provider, modelID, target, label, model, usage []byte }
	for _, m := range rv.members {
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
		case "model":
			raw.model = m.val
		case "usage":
			raw.usage = m.val
		}
	}
	if r.Type, ok = entryType(raw.typ); !ok {
		return r, false, false
	}
	if r.Type == "session" {
		return r, false, true // a repeated header: not an entry, ignored by the listing
	}
	if !plainOK(raw.id) || !parentOK(raw.parent) || !plainOK(raw.ts) {
		return r, false, false
	}
	if m != nil { // not the listing alone: the record's fields too
		r.ID, _ = plainStr(raw.id)
		r.ParentID, _ = plainStr(raw.parent)
		r.HasParent = r.ParentID != ""
		r.Timestamp, _ = plainStr(raw.ts)
		r.Provider, r.ModelID, r.Target, r.Label = str(raw.provider), str(raw.modelID), str(raw.target), str(raw.label)
		r.Model, r.Usage = str(raw.model), raw.usage
	}
	switch r.Type {
	case "session_info":
		return r, true, fastName(raw.name, b)
	case "message":
		if raw.message == nil || raw.message[0] != '{' || hasDupKey(rv.msg) {
			return r, true, false
		}
		return r, true, fastMessage(rv, m, u, b)
	}
	return r, true, true
}

// entryType is plainStr for the type member, without allocating for the
// types pi writes.
func entryType(raw []byte) (string, bool) { return knownStr(raw, entryTypes) }

// knownStr is plainStr without allocating for the strings of known.
func knownStr(raw []byte, known []string) (string, bool) {
	for _, t := range known {
		if len(raw) == len(t)+2 && string(raw[1:len(raw)-1]) == t && raw[0] == '"' {
			return t, true
		}
	}
	return plainStr(raw)
}

var (
	entryTypes = []string{"message", "session", "model_change", "thinking_level_change", "compaction",
		"branch_summary", "custom", "custom_message", "label", "session_info"}
	// roles are a message's roles, most frequent first (a role string
	// per message was 80% of a cold listing's allocations).
	roles = []string{pisession.RoleAssistant, pisession.RoleToolResult, pisession.RoleUser, pisession.RoleBashExecution,
		pisession.RoleCustom, pisession.RoleBranchSummary, pisession.RoleCompactionSummary, pisession.RoleSystem}
)

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

// plainOK reports whether plainStr would decode raw.
func plainOK(raw []byte) bool {
	return raw == nil || len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0
}

// records are listChunk's reused records.
var records = sync.Pool{New: func() any { return new(record) }}

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

// hasDupKey reports whether two members have the same key. Keys are
// compared only when a key of their length came before (a record's keys
// mostly have lengths of their own).
func hasDupKey(ms []span) bool {
	var lens uint64 // bit n: a key of length n mod 64 was seen
	for i := range ms {
		bit := uint64(1) << (len(ms[i].key) & 63)
		if lens&bit != 0 && keyBefore(ms, i) {
			return true
		}
		lens |= bit
	}
	return false
}

// keyBefore reports whether a member before ms[i] has its key.
func keyBefore(ms []span, i int) bool {
	for j := range i {
		if bytes.Equal(ms[j].key, ms[i].key) {
			return true
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
	case raw[0] == '"' && !bytes.Contains(raw, []byte(`\u`)):
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
// does, for messages of the usual shape, and fills m unless it is nil.
func fastMessage(rv *record, m *msg, u *pisession.Usage, b *body) bool {
	var role, content, ts []byte
	for _, mm := range rv.msg {
		switch string(mm.key) {
		case "role":
			role = mm.val
		case "content":
			content = mm.val
		case "timestamp":
			ts = mm.val
		}
		if m == nil {
			continue
		}
		switch string(mm.key) {
		case "provider":
			m.Provider = intern(mm.val)
		case "model":
			m.Model = intern(mm.val)
		case "responseModel":
			m.ResponseModel = intern(mm.val)
		case "usage":
			if u.Decode(mm.val) {
				m.Usage = u
			}
		}
	}
	roleStr, ok := knownStr(role, roles)
	if !ok {
		return false
	}
	if m != nil {
		m.Role = roleStr
	}
	if b.Dropped {
		return true // pi's builder ignores everything after a drop
	}
	if content == nil || (roleStr != "user" && roleStr != "assistant") {
		b.MessageCount++
		return true
	}
	if len(ts) == 0 || !(ts[0] == '-' || ts[0] >= '0' && ts[0] <= '9') {
		return false // pi falls back to Date.parse of the entry timestamp
	}
	f, err := parseNumber(ts)
	if err != nil {
		return false
	}
	want := roleStr == "user" && b.FirstMessage == ""
	text, throws, ok := "", content[0] != '"' && (content[0] != '[' || rv.contentNull), true
	if want && !throws {
		text, ok = fastText(content)
	}
	if !ok {
		return false
	}
	b.MessageCount++
	b.Activity = math.Max(b.Activity, f)
	if throws {
		b.Dropped = true
		return true
	}
	if text != "" && want {
		b.FirstMessage = text
	}
	return true
}

// fastText returns the text of a message content as pi's text extraction
// does (a string, or the text blocks of an array without null elements
// joined by spaces); ok is false when the slow path must decide.
func fastText(content []byte) (text string, ok bool) {
	if content[0] == '"' {
		if bytes.Contains(content, []byte(`\u`)) {
			return "", false
		}
		return str(content), true
	}
	var parts []string
	for el := range jsjson.Elements(content) {
		if el[0] != '{' {
			continue
		}
		typ, txt := jsjson.Field(el, "type"), jsjson.Field(el, "text")
		if bytes.IndexByte(typ, '\\') >= 0 {
			return "", false
		}
		if str(typ) != "text" {
			continue
		}
		switch {
		case txt == nil || string(txt) == "null":
			parts = append(parts, "")
		case txt[0] == '"' && !bytes.Contains(txt, []byte(`\u`)):
			parts = append(parts, str(txt))
		default:
			return "", false
		}
	}
	return strings.Join(parts, " "), true
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
	Model                         string // usage
	// Usage is the raw usage member of a usage, compaction or
	// branch_summary entry; only valid during the call it is given to.
	Usage []byte
}

func recOf(e *pisession.Entry) rec {
	r := rec{Type: e.Type, ID: e.ID, ParentID: e.ParentID, Timestamp: e.Timestamp, HasParent: e.HasParent()}
	r.Provider, _ = e.String("provider")
	r.ModelID, _ = e.String("modelId")
	r.Target, _ = e.String("targetId")
	r.Label, _ = e.String("label")
	r.Model, _ = e.String("model")
	r.Usage = e.Field("usage")
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

// parseNumber is strconv.ParseFloat for a valid JSON number, without its
// cost for the plain integers message timestamps are: up to 15 digits, a
// float64 holds one exactly.
func parseNumber(b []byte) (float64, error) {
	if len(b) == 0 || len(b) > 15 {
		return strconv.ParseFloat(string(b), 64)
	}
	n := int64(0)
	for _, c := range b {
		if c < '0' || c > '9' {
			return strconv.ParseFloat(string(b), 64)
		}
		n = n*10 + int64(c-'0')
	}
	return float64(n), nil
}
