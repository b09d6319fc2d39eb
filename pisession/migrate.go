package pisession

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
)

// migrate upgrades version 1 and 2 records to version 3 in memory, with pi's
// rules: v1 entries get random ids chained in file order, compactions turn
// firstKeptEntryIndex into firstKeptEntryId, and v2 hookMessage roles become
// custom. New keys are appended after the existing ones, where pi's
// JavaScript objects put them.
func (s *Session) migrate() {
	if s.Version < 2 {
		s.migrateV1()
	}
	for _, r := range s.records {
		switch {
		case r.Type == "session" && r.IsObject():
			r.setMembers(member3("version", []byte("3")))
		case r.Type == "message" && r.IsObject():
			migrateHookMessage(r)
		}
	}
	s.byID, s.indexed = idTable{}, 0
	s.ids()
	s.Migrated = true
}

// migrateV1 gives every entry an id, unique in the file as pi's are, and
// links it to the previous record.
func (s *Session) migrateV1() {
	prev := []byte("null")
	taken := map[string]bool{} // pi's migration draws each id unused so far
	for _, r := range s.records {
		if !r.IsObject() || r.Type == "session" {
			continue
		}
		fresh := NewEntryID(func(id string) bool { return taken[id] })
		taken[fresh] = true
		id := strconv.AppendQuote(nil, fresh)
		set := []rawMember{member3("id", id), member3("parentId", prev)}
		if r.Type == "compaction" {
			set = append(set, s.firstKeptFromIndex(r)...)
		}
		r.setMembers(set...)
		r.dropMember("firstKeptEntryIndex", r.Type == "compaction" && isNumber(r.Field("firstKeptEntryIndex")))
		prev = id
	}
}

// firstKeptFromIndex maps a v1 compaction's record index to the id of that
// record; the index counts the header as 0 and skips unparseable lines.
func (s *Session) firstKeptFromIndex(r *Entry) []rawMember {
	raw := r.Field("firstKeptEntryIndex")
	if !isNumber(raw) {
		return nil
	}
	i, err := strconv.Atoi(string(raw))
	if err != nil || i < 0 || i >= len(s.records) {
		return nil
	}
	t := s.records[i]
	if t.Type == "session" || !t.IsObject() || t.Field("id") == nil {
		return nil
	}
	return []rawMember{member3("firstKeptEntryId", t.Field("id"))}
}

func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// migrateHookMessage renames the v2 hookMessage role to custom.
func migrateHookMessage(r *Entry) {
	m := messageOf(r)
	if roleOf(m) != "hookMessage" {
		return
	}
	nm := rebuildObject(m.raw, m.members, []rawMember{member3("role", []byte(`"custom"`))}, "")
	r.setMembers(member3("message", nm))
}

// rawMember is a key and the raw JSON of its value.
type rawMember struct {
	key   string
	value []byte
}

func member3(key string, value []byte) rawMember { return rawMember{key, value} }

// setMembers assigns members like JavaScript property assignment: an
// existing key keeps its position, a new key goes last.
func (e *Entry) setMembers(set ...rawMember) {
	e.Raw = rebuildObject(e.Raw, e.top(), set, "")
	e.rescan()
}

// dropMember deletes every occurrence of key when cond holds.
func (e *Entry) dropMember(key string, cond bool) {
	if !cond {
		return
	}
	e.Raw = rebuildObject(e.Raw, e.top(), nil, key)
	e.rescan()
}

// rebuildObject writes the object raw with JavaScript's semantics for
// duplicate keys (first position, last value), the values in set assigned
// and the key drop removed. Untouched values keep their bytes.
func rebuildObject(raw []byte, members []member, set []rawMember, drop string) []byte {
	var out []byte
	objectPieces(raw, members, set, drop, func(p []byte) { out = append(out, p...) })
	return out
}

// objectPieces gives emit, in order, the pieces of rebuildObject's
// object, whose values are the bytes of raw or set: a writer of an entry
// of tens of MB does not copy it (issue 21).
func objectPieces(raw []byte, members []member, set []rawMember, drop string, emit func([]byte)) {
	type kv struct {
		keyRaw []byte
		value  []byte
	}
	var order []string
	vals := map[string]*kv{}
	for _, m := range members {
		name, keyRaw := m.name(raw), m.quoted(raw)
		if m.keyEnd < 0 || name == "" {
			keyRaw = strconv.AppendQuote(nil, name)
		}
		if v, ok := vals[name]; ok {
			v.value = raw[m.valueStart:m.valueEnd]
			continue
		}
		order = append(order, name)
		vals[name] = &kv{keyRaw, raw[m.valueStart:m.valueEnd]}
	}
	for _, s := range set {
		if v, ok := vals[s.key]; ok {
			v.value = s.value
			continue
		}
		order = append(order, s.key)
		vals[s.key] = &kv{strconv.AppendQuote(nil, s.key), s.value}
	}
	punct := []byte("{,:}")
	sep := punct[0:1]
	for _, k := range order {
		if k == drop || vals[k].value == nil { // nil is undefined: left out
			continue
		}
		emit(sep)
		emit(vals[k].keyRaw)
		emit(punct[2:3])
		emit(vals[k].value)
		sep = punct[1:2]
	}
	if sep[0] == '{' {
		emit(sep)
	}
	emit(punct[3:4])
}

// NewEntryID returns a fresh entry id the way pi makes them: the first eight
// hex digits of a random UUID, retried while taken; after 100 collisions a
// full random UUID.
func NewEntryID(taken func(string) bool) string {
	for range 100 {
		var b [4]byte
		rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if taken == nil || !taken(id) {
			return id
		}
	}
	return newUUIDv4()
}

// newUUIDv4 returns a random version 4 UUID in lowercase.
func newUUIDv4() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
