package pisession

import (
	"bytes"
	"strconv"
	"unsafe"

	"piweb/internal/jsjson"
)

// Entry is one record of a session file: the header, an entry of any type,
// or a JSON value that is not an object (pi keeps those too). Raw holds the
// line exactly as it is on disk, so an entry nobody changed is written back
// byte for byte; the typed fields are decoded from it once, on load.
type Entry struct {
	// Raw is the line without its terminating newline.
	Raw []byte
	// Line is the 1-based line number and Offset the byte offset of the line
	// in the file.
	Line   int
	Offset int64

	// Type, ID, ParentID and Timestamp are the decoded top-level strings;
	// they are empty when absent or not strings (see IDKey, HasParent).
	Type      string
	ID        string
	ParentID  string
	Timestamp string

	// The private fields hold four pointers between them (the collector
	// marks every pointer of every entry, and a store of one while it
	// marks takes a write barrier: on a file of 2 KB entries parsed
	// between collections, each pointer an entry cost about 1 %).
	kind valueKind // JSON type of the whole record
	// contentSet: the message is an object whose content is there and
	// not null (the context then takes the message as it is).
	contentSet bool
	// afterParent: the entry was filed right after its parent (its
	// parent's key is the id key of the entry before it in Entries, and
	// it has a parent), so that a path runs back without comparing keys.
	// False is "not known"; a rescan clears it.
	afterParent bool
	nKey        int32 // keys[:nKey] is the id's key, keys[nKey:] the parent's
	nTop        int32 // members[:nTop] are the record's, the rest its message's
	// msgStart and msgEnd are Raw's span of the last "message" member's
	// value (msgEnd 0: none), so that the context, walking a path of
	// thousands of entries, reads no member spans for it.
	msgStart, msgEnd int32
	// keys is the id as a JavaScript Map key (see IDKey) followed by
	// parentId as one (keyNull or keyUndefined when not a string).
	keys string
	// members are the spans of the top-level members of an object
	// record, then those of its message object (offsets into Raw).
	members []member
}

// idK is the id's key (IDKey).
func (e *Entry) idK() string { return e.keys[:e.nKey] }

// parentK is the key of parentId: "s" + a string parent, keyNull,
// keyUndefined or "j" + another value's text.
func (e *Entry) parentK() string { return e.keys[e.nKey:] }

// top returns the spans of the record's top-level members.
func (e *Entry) top() []member { return e.members[:e.nTop] }

// msg returns the spans of the members of the record's message object,
// nil when it has none (no message, not an object, or an empty one).
func (e *Entry) msg() []member {
	if int(e.nTop) == len(e.members) {
		return nil
	}
	return e.members[e.nTop:]
}

// message is Field("message").
func (e *Entry) message() []byte {
	if e.msgEnd == 0 {
		return nil
	}
	return e.Raw[e.msgStart:e.msgEnd]
}

// setKeys sets the id's and the parent's keys.
func (e *Entry) setKeys(id, parent string) {
	e.keys, e.nKey = id+parent, int32(len(id))
}

// falsy reports whether the record is a JSON value JavaScript treats as
// false (null, false, 0, ""), which pi 1.6's loader and listing skip.
func (e *Entry) falsy() bool {
	switch e.kind {
	case kindNull:
		return true
	case kindBool:
		return bytes.HasPrefix(bytes.TrimSpace(e.Raw), []byte("false"))
	case kindString:
		s, _ := jsonString(bytes.TrimSpace(e.Raw))
		return s == ""
	case kindNumber:
		f, err := strconv.ParseFloat(string(bytes.TrimSpace(e.Raw)), 64)
		return err == nil && f == 0
	}
	return false
}

// IsObject reports whether the record is a JSON object. pi keeps other JSON
// values (numbers, strings, arrays) as entries without id; piweb keeps them
// so that tree and leaf match pi, and reports them as problems.
func (e *Entry) IsObject() bool { return e.kind == kindObject }

// Field returns the raw JSON of the top-level member key, or nil when the
// record has no such member. For duplicate keys the last one wins, as in
// JavaScript.
func (e *Entry) Field(key string) []byte {
	if i := lastMember(e.top(), e.Raw, key); i >= 0 {
		return e.Raw[e.members[i].valueStart:e.members[i].valueEnd]
	}
	return nil
}

// String returns the member key decoded as a string; ok is false when the
// member is absent or not a string.
func (e *Entry) String(key string) (s string, ok bool) {
	return jsonString(e.Field(key))
}

// IDKey identifies the entry the way pi's byId map does: absent ids all share
// one key, strings are keyed by value and other JSON values by their text.
func (e *Entry) IDKey() string { return e.idK() }

// HasParent reports whether the entry links to a parent, with pi's truthiness
// rule: a missing, null or empty parentId ends the path.
func (e *Entry) HasParent() bool { return truthyKey(e.parentK()) }

// truthyKey applies JavaScript truthiness to a value key.
func truthyKey(k string) bool {
	switch k {
	case keyUndefined, keyNull, "s", "jfalse":
		return false
	}
	if k[0] == 'j' && (k[1] == '-' || k[1] >= '0' && k[1] <= '9') {
		f, err := strconv.ParseFloat(k[1:], 64)
		return err != nil || f != 0
	}
	return true
}

// parentIsNull reports whether parentId is exactly JSON null.
func (e *Entry) parentIsNull() bool { return e.parentK() == keyNull }

const (
	keyUndefined = "u"
	keyNull      = "n"
)

// valueKey maps a raw JSON value to a JavaScript Map key: strings by value,
// everything else by its text; absent values get keyUndefined.
func valueKey(raw []byte) string {
	switch {
	case raw == nil:
		return keyUndefined
	case raw[0] == '"':
		s, _ := jsonString(raw)
		return "s" + s
	case string(raw) == "null":
		return keyNull
	}
	return "j" + string(raw)
}

// jsonString decodes raw as a JSON string (lone surrogates become U+FFFD,
// invalid UTF-8 is kept), ok false for anything else.
func jsonString(raw []byte) (string, bool) { return jsjson.DecodeString(raw) }

// newEntry scans one line. It returns nil when the line is not valid JSON.
func newEntry(raw []byte, line int, off int64, scratch *scratchSpace) *Entry {
	if scratch == nil {
		scratch = new(scratchSpace)
	}
	scratch.msg = scratch.msg[:0] // a line without message must not see the last one's
	members, kind, ok := scanRecord(raw, scratch.members[:0], &scratch.msg)
	scratch.members = members
	if !ok {
		return nil
	}
	return scratch.newEntry(raw, line, off, kind)
}

// compactEntry scans the object at the start of rest, a line and what
// follows it, when it is written as JSON.stringify writes (no whitespace
// between tokens, modeCompact) and its line ends right after it (LF, CR
// LF, or the end of the data at EOF): the line's end is then known
// without searching for it. It returns the entry and the bytes its line
// takes with its end, or nil, having filed nothing, for any other line,
// which the caller parses with newEntry.
func compactEntry(rest []byte, atEOF bool, line int, off int64, sc *scratchSpace) (*Entry, int) {
	if len(rest) == 0 || rest[0] != '{' {
		return nil, 0
	}
	sc.msg = sc.msg[:0]
	members, end, ok := scanObjectMembers(rest, 0, sc.members[:0], modeCompact, &sc.msg)
	sc.members = members
	if !ok {
		return nil, 0
	}
	n, adv := end, end+1 // the line's length, and with its end
	switch {
	case end < len(rest) && rest[end] == '\n':
	case end+1 < len(rest) && rest[end] == '\r' && rest[end+1] == '\n':
		n, adv = end+1, end+2
	case end == len(rest) && atEOF:
		adv = end
	default:
		return nil, 0
	}
	return sc.newEntry(rest[:n], line, off, kindObject), adv
}

// newEntry makes the entry of the scanned record raw, whose members are
// in sc.members and sc.msg.
func (sc *scratchSpace) newEntry(raw []byte, line int, off int64, kind valueKind) *Entry {
	// e is zero; its fields are set one by one, as a whole-struct store
	// into the heap while the collector marks takes the bulk write
	// barrier over all nine pointer words (3 % of a parse of 2 KB entries).
	e := sc.entry()
	e.Raw, e.Line, e.Offset, e.kind = raw, line, off, kind
	if kind == kindObject {
		b, ok := findBase(sc.members, raw)
		if !ok {
			b = lookupBase(sc.members, raw)
		}
		e.keepMembers(sc.members, sc.msg, b, sc)
		e.decodeBase(b, sc)
	} else {
		e.keys, e.nKey = keyUndefined+keyUndefined, 1
	}
	return e
}

// scratchSpace is reused between lines to keep member slices off the heap.
// A Parser's scratch also hands out entries and their members from slabs
// (entrySlab, memberSlab at a time), two allocations for many lines
// instead of three a line; a one-off scratch allocates each on its own.
//
// The first slabs are small and each is twice the last up to those sizes,
// so that a parse of one line (the listing's header, headOf in the index)
// does not allocate and zero 36 KB for it.
type scratchSpace struct {
	members, msg []member
	slab         bool
	entries      []Entry
	kept         []member
	text         []byte // bytes for the entries' base strings (packBase)
	// entrySlabs, memberSlabs and textSlabs count the slabs handed out,
	// up to 4.
	entrySlabs, memberSlabs, textSlabs uint8
}

const (
	entrySlab  = 64
	memberSlab = 1024
	textSlab   = 16 << 10
)

// grown returns the size of the next slab: a sixteenth of full for the
// first, doubling up to full; *n counts the slabs.
func grown(full int, n *uint8) int {
	size := full >> (4 - *n)
	if *n < 4 {
		*n++
	}
	return size
}

// entry returns a zero Entry for a new record.
func (sc *scratchSpace) entry() *Entry {
	if !sc.slab {
		return new(Entry)
	}
	if len(sc.entries) == 0 {
		sc.entries = make([]Entry, grown(entrySlab, &sc.entrySlabs))
	}
	e := &sc.entries[0]
	sc.entries = sc.entries[1:]
	return e
}

// keep returns top followed by msg in one slice with no room to grow
// into a neighbour's, from sc's slab of members when it has one.
func (sc *scratchSpace) keep(top, msg []member) []member {
	n := len(top) + len(msg)
	if sc == nil || !sc.slab || n > memberSlab/4 {
		return append(append(make([]member, 0, n), top...), msg...)
	}
	if cap(sc.kept)-len(sc.kept) < n {
		sc.kept = make([]member, 0, max(grown(memberSlab, &sc.memberSlabs), n))
	}
	start := len(sc.kept)
	sc.kept = append(append(sc.kept, top...), msg...)
	return sc.kept[start:len(sc.kept):len(sc.kept)]
}

// keepMembers keeps the scanned spans of a record: its members top, and
// msg when they are its message's (the last "message" member's, the one
// JavaScript sees).
func (e *Entry) keepMembers(top, msg []member, b baseSpans, sc *scratchSpace) {
	e.msgStart, e.msgEnd, e.contentSet = 0, 0, false
	if i := b.msg; i >= 0 {
		m := top[i]
		e.msgStart, e.msgEnd = m.valueStart, m.valueEnd
		if len(msg) == 0 || msg[0].keyStart <= m.valueStart || msg[0].keyStart >= m.valueEnd {
			msg = nil
		}
	} else {
		msg = nil
	}
	if c := lastContent(msg, e.Raw); c >= 0 {
		e.contentSet = string(e.Raw[msg[c].valueStart:msg[c].valueEnd]) != "null"
	}
	e.members, e.nTop = sc.keep(top, msg), int32(len(top))
}

// bytes returns an empty slice with room for n bytes that nothing else
// will use: from a slab of text when sc has slabs (one allocation for
// hundreds of entries' ids instead of one each), its own otherwise. What
// is written into it must never change, as it becomes strings.
func (sc *scratchSpace) bytes(n int) []byte {
	if sc == nil || !sc.slab || n > textSlab/16 {
		return make([]byte, 0, n)
	}
	if cap(sc.text)-len(sc.text) < n {
		sc.text = make([]byte, 0, grown(textSlab, &sc.textSlabs))
	}
	start := len(sc.text)
	sc.text = sc.text[:start+n]
	return sc.text[start : start : start+n]
}

// decodeBase fills the typed base fields from the members. A plain type
// is interned; on the common line (id, timestamp and a parent that is a
// string or null, none with escapes) the id and parent keys and the
// timestamp share one allocation, and an id shares its key's bytes ("s"
// + id).
func (e *Entry) decodeBase(b baseSpans, sc *scratchSpace) {
	top := e.top()
	e.Type = plainString(value(top, e.Raw, b.typ), true)
	id, parent, ts := value(top, e.Raw, b.id), value(top, e.Raw, b.parent), value(top, e.Raw, b.ts)
	if e.packBase(id, parent, ts, sc) {
		return
	}
	idKey, idStr := keyAndString(id)
	parentKey, parentStr := keyAndString(parent)
	e.setKeys(idKey, parentKey)
	e.ID, e.ParentID = idStr, parentStr
	e.Timestamp = plainString(ts, false)
}

// packBase is decodeBase's common case in one string: "s" + id, then
// "s" + parent (or keyNull), then the timestamp, from sc's slab of bytes
// when it has one.
// It reports false, filling nothing, for any other line.
func (e *Entry) packBase(id, parent, ts []byte, sc *scratchSpace) bool {
	idb, ok1 := plainBody(id)
	tsb, ok2 := plainBody(ts)
	pb, ok3 := plainBody(parent)
	if !ok1 || !ok2 || !ok3 && string(parent) != "null" {
		return false
	}
	nk := 1 + len(idb) + 1 // the keys, keyNull for a null parent
	if ok3 {
		nk += len(pb)
	}
	buf := sc.bytes(nk + len(tsb))
	buf = append(append(buf, 's'), idb...)
	if ok3 {
		buf = append(append(buf, 's'), pb...)
	} else {
		buf = append(buf, keyNull...)
	}
	buf = append(buf, tsb...)
	all := unsafe.String(unsafe.SliceData(buf), len(buf))
	e.keys, e.nKey, e.Timestamp = all[:nk], int32(1+len(idb)), all[nk:]
	e.ID = all[1 : 1+len(idb)]
	if ok3 {
		e.ParentID = all[2+len(idb) : nk]
	}
	return true
}

// plainBody returns the body of raw when it is a JSON string without
// escapes.
func plainBody(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	return body, bytes.IndexByte(body, '\\') < 0
}

// plainString decodes raw when it is a JSON string, interning it when
// asked and it has no escapes; "" for anything else, as String.
func plainString(raw []byte, interned bool) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 {
		if interned {
			return intern(body)
		}
		return string(body)
	}
	s, _ := jsonString(raw)
	return s
}

// keyAndString returns valueKey(raw) and, when raw is a string, its value
// as a substring of the key.
func keyAndString(raw []byte) (key, s string) {
	if len(raw) < 2 || raw[0] != '"' {
		return valueKey(raw), ""
	}
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 {
		key = "s" + string(body)
	} else {
		v, _ := jsonString(raw)
		key = "s" + v
	}
	return key, key[1:]
}

// rescan re-reads the members after Raw was replaced.
func (e *Entry) rescan() {
	var msg []member
	members, _, _ := scanRecord(e.Raw, nil, &msg)
	e.afterParent = false
	b := lookupBase(members, e.Raw)
	e.keepMembers(members, msg, b, nil)
	e.decodeBase(b, nil)
}
