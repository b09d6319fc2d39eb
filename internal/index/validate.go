package index

import (
	"bytes"
	"encoding/binary"

	"piweb/internal/jsjson"
)

// validObject reports whether line is exactly one JSON object (what
// JSON.parse accepts, JSON white space around it allowed) and returns the
// spans of its top-level members. It is a fast path for the listing pass:
// it must never accept what JSON.parse rejects, and may reject unusual
// valid lines (escaped keys), which then go through the session parser.
// Strings are checked eight bytes at a time, since tool output in long
// strings is most of a session's bytes.
func validObject(line []byte, members []span) ([]span, bool) {
	v := validator{b: line}
	i := v.ws(0)
	if i >= len(line) || line[i] != '{' {
		return members, false
	}
	members, end, ok := v.object(i, members, true)
	return members, ok && v.ws(end) == len(line)
}

// validRecord is validObject that also returns the members of the
// top-level "message" object, so that message fields need no second scan.
func validRecord(line []byte, members, msg []span) ([]span, []span, bool) {
	v := validator{b: line, msg: msg[:0], wantMsg: true}
	i := v.ws(0)
	if i >= len(line) || line[i] != '{' {
		return members, v.msg, false
	}
	members, end, ok := v.object(i, members, true)
	return members, v.msg, ok && v.ws(end) == len(line) && !v.msgEsc
}

// span is a top-level member: the key without quotes and the raw value.
type span struct {
	key, val []byte
}

type validator struct {
	b     []byte
	depth int
	// With wantMsg, the members of the top-level "message" object go to
	// msg; msgEsc is set when one of its keys has escapes.
	wantMsg, msgEsc bool
	msg             []span
}

const maxDepth = 512

func (v *validator) ws(i int) int {
	for i < len(v.b) {
		switch v.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// object validates the object at b[i] == '{'; with top it records members
// (and fails on escaped keys, which need decoding).
func (v *validator) object(i int, members []span, top bool) ([]span, int, bool) {
	return v.objectRec(i, members, top, top)
}

// objectRec is object; record keeps the members.
func (v *validator) objectRec(i int, members []span, top, record bool) ([]span, int, bool) {
	if v.depth++; v.depth > maxDepth {
		return members, 0, false
	}
	defer func() { v.depth-- }()
	i = v.ws(i + 1)
	if i < len(v.b) && v.b[i] == '}' {
		return members, i + 1, true
	}
	for {
		if i >= len(v.b) || v.b[i] != '"' {
			return members, 0, false
		}
		kEnd, esc, ok := v.str(i)
		if !ok || (top && esc) {
			return members, 0, false
		}
		if esc && record {
			v.msgEsc = true
		}
		key := v.b[i+1 : kEnd-1]
		if i = v.ws(kEnd); i >= len(v.b) || v.b[i] != ':' {
			return members, 0, false
		}
		i = v.ws(i + 1)
		var end int
		if top && v.wantMsg && string(key) == "message" && i < len(v.b) && v.b[i] == '{' {
			v.msg, end, ok = v.objectRec(i, v.msg, false, true)
			v.wantMsg = false
		} else {
			end, ok = v.value(i)
		}
		if !ok {
			return members, 0, false
		}
		if record {
			members = append(members, span{key, v.b[i:end]})
		}
		if i = v.ws(end); i >= len(v.b) {
			return members, 0, false
		}
		switch v.b[i] {
		case '}':
			return members, i + 1, true
		case ',':
			i = v.ws(i + 1)
		default:
			return members, 0, false
		}
	}
}

func (v *validator) array(i int) (int, bool) {
	if v.depth++; v.depth > maxDepth {
		return 0, false
	}
	defer func() { v.depth-- }()
	i = v.ws(i + 1)
	if i < len(v.b) && v.b[i] == ']' {
		return i + 1, true
	}
	for {
		end, ok := v.value(i)
		if !ok {
			return 0, false
		}
		if i = v.ws(end); i >= len(v.b) {
			return 0, false
		}
		switch v.b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = v.ws(i + 1)
		default:
			return 0, false
		}
	}
}

func (v *validator) value(i int) (int, bool) {
	if i >= len(v.b) {
		return 0, false
	}
	switch c := v.b[i]; c {
	case '"':
		end, _, ok := v.str(i)
		return end, ok
	case '{':
		_, end, ok := v.object(i, nil, false)
		return end, ok
	case '[':
		return v.array(i)
	case 't':
		return lit(v.b, i, "true")
	case 'f':
		return lit(v.b, i, "false")
	case 'n':
		return lit(v.b, i, "null")
	default:
		return number(v.b, i)
	}
}

func lit(b []byte, i int, s string) (int, bool) {
	if len(b)-i >= len(s) && string(b[i:i+len(s)]) == s {
		return i + len(s), true
	}
	return 0, false
}

// number validates the JSON number at b[i] with jsjson's grammar.
func number(b []byte, i int) (int, bool) {
	end := jsjson.NumberEnd(b, i)
	return end, end >= 0
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// hasControl reports whether b holds a byte below 0x20, eight bytes at a
// time: with no such byte no subtraction borrows, so the test is exact.
func hasControl(b []byte) bool {
	var acc uint64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		acc |= (w - ones*0x20) &^ w
	}
	if acc&highs != 0 {
		return true
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return true
		}
	}
	return false
}

// str validates the string at b[i] == '"' and returns the offset after it
// and whether it has escapes. The closing quote and the backslashes are
// found with IndexByte (vectorized), the control characters checked once
// over the whole string.
func (v *validator) str(i int) (int, bool, bool) {
	b := v.b
	start := i + 1
	i = start
	esc := false
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return 0, false, false
		}
		q += i
		j := i
		for j < q {
			k := bytes.IndexByte(b[j:q], '\\')
			if k < 0 {
				break
			}
			k += j
			esc = true
			n, ok := escape(b, k)
			if !ok {
				return 0, false, false
			}
			j = k + n
		}
		if j > q { // the quote was escaped
			i = j
			continue
		}
		if hasControl(b[start:q]) {
			return 0, false, false
		}
		return q + 1, esc, true
	}
}

func escape(b []byte, i int) (int, bool) {
	if i+1 >= len(b) {
		return 0, false
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
		if i+6 > len(b) {
			return 0, false
		}
		for _, c := range b[i+2 : i+6] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return 0, false
			}
		}
		return 6, true
	}
	return 0, false
}
