package pisession

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"piweb/internal/jsjson"
)

// This file holds the JSON scanner the package uses on its hot path. It
// validates a line exactly as JavaScript's JSON.parse would accept it, and
// records where each top-level member of an object starts and ends, without
// decoding any value. Values are decoded only when somebody asks for them, so
// parsing a file costs little more than reading it. Strings and nested
// values are validated by jsjson (ScanString, ValidEnd), the validators the
// whole program shares; only the recording of members is the package's own.

// valueKind is the JSON type of a scanned value.
type valueKind uint8

const (
	kindInvalid valueKind = iota
	kindNull
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// member is the span of one top-level member of a JSON object, as offsets into
// the scanned line: the key (quotes included) and the value. It holds no
// pointer and no decoded key (a file of short entries has a dozen members
// a line: decoding or interning each name cost a fifth of its parse, and
// pointers in the member slabs cost the collector). word holds the key's
// first eight bytes, so a key of up to eight bytes (type, id, parentId,
// message, role, content, provider, model) is compared without reading
// the line again; keyEnd's sign bit marks a key with escapes, decoded to
// compare.
type member struct {
	keyStart, keyEnd     int32
	valueStart, valueEnd int32
	word                 uint64
}

const escapedKey = math.MinInt32

// keyWord returns the first eight bytes of k, zero-padded, little endian.
func keyWord[T string | []byte](k T) uint64 {
	var w [8]byte
	copy(w[:], k)
	return binary.LittleEndian.Uint64(w[:])
}

// wordAt is keyWord(b[i:i+n]), with one load where b has eight bytes there.
func wordAt(b []byte, i, n int) uint64 {
	if i+8 > len(b) {
		return keyWord(b[i : i+n])
	}
	w := binary.LittleEndian.Uint64(b[i:])
	if n < 8 {
		w &= 1<<(8*n) - 1
	}
	return w
}

// lastMember returns the index in ms of the last member whose key is
// key, -1 when there is none: JavaScript's value for repeated keys.
func lastMember(ms []member, raw []byte, key string) int {
	w, n := keyWord(key), int32(len(key))
	for i := len(ms) - 1; i >= 0; i-- {
		if m := ms[i]; m.word == w && m.keyEnd-m.keyStart-2 == n {
			if n <= 8 || string(raw[m.keyStart+1:m.keyEnd-1]) == key {
				return i
			}
		} else if m.keyEnd < 0 && m.escapedIs(raw, key) {
			return i
		}
	}
	return -1
}

// escapedIs reports whether the member's key, which has escapes, is key.
func (m member) escapedIs(raw []byte, key string) bool { return m.name(raw) == key }

// name returns the member's decoded key.
func (m member) name(raw []byte) string {
	s, _ := jsjson.DecodeString(m.quoted(raw))
	return s
}

// quoted returns the member's key as it is in raw, quotes included.
func (m member) quoted(raw []byte) []byte { return raw[m.keyStart : m.keyEnd&math.MaxInt32] }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanString validates the string starting at b[i] == '"' and returns the
// offset after its closing quote. String bodies are most of a session
// file's bytes; jsjson.ScanString reads them 64 bytes at a time. In
// modeTrusted, for bytes validated before, only the closing quote is found
// (with bytes.IndexByte, inside jsjson.ValueEnd).
func scanString(b []byte, i int, mode scanMode) (end int, ok bool) {
	if mode == modeTrusted {
		end = jsjson.ValueEnd(b, i)
		return end, end >= 0
	}
	end, _, ok = jsjson.ScanString(b, i)
	return end, ok
}

// scanMode says how much checking the scanner does.
type scanMode uint8

const (
	// modeFast validates strings fully.
	modeFast scanMode = iota
	// modeTrusted only finds value ends, in bytes already validated.
	modeTrusted
	// modeCompact validates as modeFast but refuses whitespace between
	// tokens (jsjson.CompactEnd), so that what it accepts holds no line
	// end: the parser scans a record before it knows where its line ends.
	modeCompact
)

// space skips the whitespace at b[i], none in modeCompact.
func space(b []byte, i int, mode scanMode) int {
	if mode == modeCompact {
		return i
	}
	return skipSpace(b, i)
}

// scanValue validates the JSON value starting at b[i] (no leading space)
// with jsjson.ValidEnd, or in modeTrusted only finds its end with
// jsjson.ValueEnd, and returns its end and kind.
func scanValue(b []byte, i int, mode scanMode) (int, valueKind, bool) {
	if i >= len(b) {
		return 0, kindInvalid, false
	}
	var end int
	switch {
	case mode == modeTrusted:
		end = jsjson.ValueEnd(b, i)
	case b[i] == '"': // most members are strings: one call less
		var ok bool
		if end, ok = scanString(b, i, mode); !ok {
			end = -1
		}
	case mode == modeCompact:
		end = jsjson.CompactEnd(b, i)
	default:
		end = jsjson.ValidEnd(b, i)
	}
	if end < 0 {
		return 0, kindInvalid, false
	}
	return end, kindOf[b[i]], true
}

// kindOf is the kind of a valid JSON value by its first byte.
var kindOf = func() (k [256]valueKind) {
	k['n'], k['t'], k['f'], k['"'], k['['], k['{'] = kindNull, kindBool, kindBool, kindString, kindArray, kindObject
	for _, c := range "-0123456789" {
		k[c] = kindNumber
	}
	return k
}()

// scanRecord validates one line as JSON.parse would and, for an object,
// returns its top-level members. Later duplicates of a key are kept in the
// slice; lookups take the last one, as JavaScript does.
func scanRecord(b []byte, members []member, msg *[]member) ([]member, valueKind, bool) {
	mode := modeFast
	i := skipSpace(b, 0)
	if i >= len(b) {
		return members, kindInvalid, false
	}
	if b[i] != '{' {
		end, kind, ok := scanValue(b, i, mode)
		if !ok || skipSpace(b, end) != len(b) {
			return members, kindInvalid, false
		}
		return members, kind, true
	}
	members, end, ok := scanObjectMembers(b, i, members, mode, msg)
	if !ok || skipSpace(b, end) != len(b) {
		return members, kindInvalid, false
	}
	return members, kindObject, true
}

// scanObjectMembers walks the object at b[i] == '{', appending its members.
// When msg is not nil, the members of a "message" member's object are
// appended to it too, so that readers of a message's role or model need no
// second scan.
func scanObjectMembers(b []byte, i int, members []member, mode scanMode, msg *[]member) ([]member, int, bool) {
	i = space(b, i+1, mode)
	if i < len(b) && b[i] == '}' {
		return members, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return members, 0, false
		}
		keyEnd, escaped, ok := scanKey(b, i, mode)
		if !ok {
			return members, 0, false
		}
		keyStart, keyFlag, word := int32(i), int32(escapedKey), uint64(0)
		if !escaped {
			keyFlag, word = 0, wordAt(b, i+1, keyEnd-i-2)
		}
		if i = space(b, keyEnd, mode); i >= len(b) || b[i] != ':' {
			return members, 0, false
		}
		i = space(b, i+1, mode)
		var end int
		if msg != nil && i < len(b) && b[i] == '{' && isMessage(b, keyStart, int32(keyEnd)|keyFlag, word) {
			*msg, end, ok = scanObjectMembers(b, i, (*msg)[:0], mode, nil)
		} else {
			end, _, ok = scanValue(b, i, mode)
		}
		if !ok {
			return members, 0, false
		}
		members = appendMember(members, keyStart, int32(keyEnd)|keyFlag, int32(i), int32(end), word)
		if i = space(b, end, mode); i >= len(b) {
			return members, 0, false
		}
		switch b[i] {
		case '}':
			return members, i + 1, true
		case ',':
			i = space(b, i+1, mode)
		default:
			return members, 0, false
		}
	}
}

// appendMember appends a member field by field. append of a member
// value built it on the stack with four-byte stores and then copied it
// with 16-byte loads, which stalled on store forwarding: 5 % of the parse
// of a file of 2 KB entries.
func appendMember(ms []member, keyStart, keyEnd, valueStart, valueEnd int32, word uint64) []member {
	n := len(ms)
	if n == cap(ms) {
		ms = slices.Grow(ms, 1)
	}
	ms = ms[:n+1]
	m := &ms[n]
	m.keyStart, m.keyEnd, m.valueStart, m.valueEnd, m.word = keyStart, keyEnd, valueStart, valueEnd, word
	return ms
}

// scanKey is scanString for a member's key, which also tells whether
// the key has escapes (in modeTrusted, by looking for a backslash).
func scanKey(b []byte, i int, mode scanMode) (end int, escaped, ok bool) {
	if mode == modeTrusted {
		end = jsjson.ValueEnd(b, i)
		return end, end >= 0 && bytes.IndexByte(b[i:end], '\\') >= 0, end >= 0
	}
	return jsjson.ScanString(b, i)
}
