package session

import (
	"bytes"

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
// the scanned line: the key (quotes included) and the value.
type member struct {
	key                  string
	keyStart, valueStart int32
	valueEnd             int32
}

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
)

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
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return members, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return members, 0, false
		}
		keyEnd, ok := scanString(b, i, mode)
		if !ok {
			return members, 0, false
		}
		m := member{keyStart: int32(i)}
		m.key = internKey(b[i:keyEnd], bytes.IndexByte(b[i:keyEnd], '\\') >= 0)
		if i = skipSpace(b, keyEnd); i >= len(b) || b[i] != ':' {
			return members, 0, false
		}
		i = skipSpace(b, i+1)
		var end int
		if msg != nil && m.key == "message" && i < len(b) && b[i] == '{' {
			*msg, end, ok = scanObjectMembers(b, i, (*msg)[:0], mode, nil)
		} else {
			end, _, ok = scanValue(b, i, mode)
		}
		if !ok {
			return members, 0, false
		}
		m.valueStart, m.valueEnd = int32(i), int32(end)
		members = append(members, m)
		if i = skipSpace(b, end); i >= len(b) {
			return members, 0, false
		}
		switch b[i] {
		case '}':
			return members, i + 1, true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return members, 0, false
		}
	}
}

// internKey returns the decoded key of a quoted JSON string, without
// allocating for the keys pi writes.
func internKey(q []byte, escaped bool) string {
	if escaped {
		s, _ := jsjson.DecodeString(q)
		return s
	}
	return intern(q[1 : len(q)-1])
}
