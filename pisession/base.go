package pisession

// The members every entry's base fields come from are found in one pass
// over the record's member spans, by their first eight bytes computed
// once: looked up one by one (lastMember, from the end), six names an
// entry cost 5-7 % of a parse, half of it building each name's word.

var (
	wType     = keyWord("type")
	wID       = keyWord("id")
	wParentID = keyWord("parentId")
	wTimestam = keyWord("timestamp") // its first eight bytes
	wMessage  = keyWord("message")
	wContent  = keyWord("content")
	noneFound = baseSpans{typ: -1, id: -1, parent: -1, ts: -1, msg: -1}
)

// baseSpans are the indexes in a record's members of the last type, id,
// parentId, timestamp and message members, -1 for each one absent.
type baseSpans struct{ typ, id, parent, ts, msg int }

// findBase finds the base members of top in one pass, as lastMember
// would one by one; ok is false when a key has escapes (the caller then
// looks each one up).
func findBase(top []member, raw []byte) (b baseSpans, ok bool) {
	b = noneFound
	for i := range top {
		m := &top[i]
		if m.keyEnd < 0 {
			return b, false
		}
		switch n := m.keyEnd - m.keyStart - 2; {
		case m.word == wType && n == 4:
			b.typ = i
		case m.word == wID && n == 2:
			b.id = i
		case m.word == wParentID && n == 8:
			b.parent = i
		case m.word == wTimestam && n == 9 && raw[m.keyStart+9] == 'p':
			b.ts = i
		case m.word == wMessage && n == 7:
			b.msg = i
		}
	}
	return b, true
}

// lookupBase is findBase by lastMember, for keys with escapes.
func lookupBase(top []member, raw []byte) baseSpans {
	return baseSpans{typ: lastMember(top, raw, "type"), id: lastMember(top, raw, "id"),
		parent: lastMember(top, raw, "parentId"), ts: lastMember(top, raw, "timestamp"),
		msg: lastMember(top, raw, "message")}
}

// value returns the raw value of ms[i], nil when i is -1.
func value(ms []member, raw []byte, i int) []byte {
	if i < 0 {
		return nil
	}
	return raw[ms[i].valueStart:ms[i].valueEnd]
}

// isMessage reports whether the key of a member being scanned (see
// member) is "message".
func isMessage(b []byte, keyStart, keyEnd int32, word uint64) bool {
	if keyEnd < 0 {
		return (member{keyStart: keyStart, keyEnd: keyEnd}).escapedIs(b, "message")
	}
	return word == wMessage && keyEnd-keyStart == 9
}

// lastContent is lastMember(ms, raw, "content") without escapes in
// keys; with them it is lastMember.
func lastContent(ms []member, raw []byte) int {
	for i := len(ms) - 1; i >= 0; i-- {
		if m := &ms[i]; m.keyEnd < 0 {
			return lastMember(ms, raw, "content")
		} else if m.word == wContent && m.keyEnd-m.keyStart-2 == 7 {
			return i
		}
	}
	return -1
}
