package session

import (
	"unicode/utf8"
)

// This file holds the one JSON scanner the package uses on its hot path. It
// validates a line exactly as JavaScript's JSON.parse would accept it, and
// records where each top-level member of an object starts and ends, without
// decoding any value. Values are decoded only when somebody asks for them, so
// parsing a file costs little more than reading it.

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

// strSkip marks the bytes that end the fast path inside a string body.
var strSkip = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// scanString validates the string starting at b[i] == '"' and returns the
// offset after its closing quote and whether it contained escapes.
func scanString(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		for i < len(b) && !strSkip[b[i]] {
			i++
		}
		if i >= len(b) || b[i] < 0x20 {
			return 0, false, false
		}
		if b[i] == '"' {
			return i + 1, escaped, true
		}
		escaped = true
		n, ok := escapeLen(b, i)
		if !ok {
			return 0, false, false
		}
		i += n
	}
}

// escapeLen returns the length of the escape sequence at b[i] == '\\'.
func escapeLen(b []byte, i int) (int, bool) {
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
			if hexVal(c) < 0 {
				return 0, false
			}
		}
		return 6, true
	}
	return 0, false
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// scanNumber validates a JSON number at b[i].
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// scanValue validates the JSON value starting at b[i] (no leading space) and
// returns its end. Containers are walked with an explicit stack so that deeply
// nested input cannot exhaust anything but memory proportional to its depth.
func scanValue(b []byte, i int) (int, valueKind, bool) {
	if i >= len(b) {
		return 0, kindInvalid, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := scanString(b, i)
		return end, kindString, ok
	case c == '{' || c == '[':
		end, ok := scanContainer(b, i)
		if c == '{' {
			return end, kindObject, ok
		}
		return end, kindArray, ok
	case c == 't':
		end, ok := scanLiteral(b, i, "true")
		return end, kindBool, ok
	case c == 'f':
		end, ok := scanLiteral(b, i, "false")
		return end, kindBool, ok
	case c == 'n':
		end, ok := scanLiteral(b, i, "null")
		return end, kindNull, ok
	default:
		end, ok := scanNumber(b, i)
		return end, kindNumber, ok
	}
}

// scanContainer validates the object or array starting at b[i].
func scanContainer(b []byte, i int) (int, bool) {
	stack := make([]byte, 0, 16)
	stack = append(stack, b[i])
	i++
	first := true
	for len(stack) > 0 {
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, false
		}
		top := stack[len(stack)-1]
		closer := byte(']')
		if top == '{' {
			closer = '}'
		}
		if b[i] == closer && first {
			stack = stack[:len(stack)-1]
			i++
			first = false
			continue
		}
		if !first {
			if b[i] == closer {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
		}
		if top == '{' {
			var ok bool
			if i >= len(b) || b[i] != '"' {
				return 0, false
			}
			if i, _, ok = scanString(b, i); !ok {
				return 0, false
			}
			if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
				return 0, false
			}
			i = skipSpace(b, i+1)
		}
		if i < len(b) && (b[i] == '{' || b[i] == '[') {
			stack = append(stack, b[i])
			i++
			first = true
			continue
		}
		end, _, ok := scanValue(b, i)
		if !ok {
			return 0, false
		}
		i, first = end, false
	}
	return i, true
}

// scanRecord validates one line as JSON.parse would and, for an object,
// returns its top-level members. Later duplicates of a key are kept in the
// slice; lookups take the last one, as JavaScript does.
func scanRecord(b []byte, members []member) ([]member, valueKind, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) {
		return members, kindInvalid, false
	}
	if b[i] != '{' {
		end, kind, ok := scanValue(b, i)
		if !ok || skipSpace(b, end) != len(b) {
			return members, kindInvalid, false
		}
		return members, kind, true
	}
	members, end, ok := scanObjectMembers(b, i, members)
	if !ok || skipSpace(b, end) != len(b) {
		return members, kindInvalid, false
	}
	return members, kindObject, true
}

// scanObjectMembers walks the object at b[i] == '{', appending its members.
func scanObjectMembers(b []byte, i int, members []member) ([]member, int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return members, i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return members, 0, false
		}
		keyEnd, escaped, ok := scanString(b, i)
		if !ok {
			return members, 0, false
		}
		m := member{keyStart: int32(i)}
		m.key = internKey(b[i:keyEnd], escaped)
		if i = skipSpace(b, keyEnd); i >= len(b) || b[i] != ':' {
			return members, 0, false
		}
		i = skipSpace(b, i+1)
		end, _, ok := scanValue(b, i)
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
		return unquote(q)
	}
	k := q[1 : len(q)-1]
	switch string(k) {
	case "type":
		return "type"
	case "id":
		return "id"
	case "parentId":
		return "parentId"
	case "timestamp":
		return "timestamp"
	case "message":
		return "message"
	case "role":
		return "role"
	case "content":
		return "content"
	}
	return string(k)
}

// unquote decodes a valid quoted JSON string. Lone surrogates become U+FFFD,
// the only place where a Go string cannot hold what JavaScript holds.
func unquote(q []byte) string {
	s := q[1 : len(q)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n := decodeUnicodeEscape(s, i)
			out = utf8.AppendRune(out, r)
			i += n
			continue
		default:
			out = append(out, s[i+1])
		}
		i += 2
	}
	return string(out)
}

// decodeUnicodeEscape decodes \uXXXX at s[i], joining a surrogate pair.
func decodeUnicodeEscape(s []byte, i int) (rune, int) {
	r := hex4(s[i+2 : i+6])
	if r >= 0xD800 && r < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
		if lo := hex4(s[i+8 : i+12]); lo >= 0xDC00 && lo < 0xE000 {
			return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, 12
		}
	}
	if r >= 0xD800 && r < 0xE000 {
		return utf8.RuneError, 6
	}
	return r, 6
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r = r<<4 | rune(hexVal(c))
	}
	return r
}
