package index

import "encoding/binary"

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

// span is a top-level member: the key without quotes and the raw value.
type span struct {
	key, val []byte
}

type validator struct {
	b     []byte
	depth int
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
		key := v.b[i+1 : kEnd-1]
		if i = v.ws(kEnd); i >= len(v.b) || v.b[i] != ':' {
			return members, 0, false
		}
		i = v.ws(i + 1)
		end, ok := v.value(i)
		if !ok {
			return members, 0, false
		}
		if top {
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

func number(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
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
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports, for eight bytes, whether any is a control character,
// a quote or a backslash.
func special(w uint64) bool {
	ctl := (w - ones*0x20) &^ w
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((ctl | (q-ones)&^q | (bs-ones)&^bs) & highs) != 0
}

// str validates the string at b[i] == '"' and returns the offset after it
// and whether it has escapes.
func (v *validator) str(i int) (int, bool, bool) {
	b := v.b
	i++
	esc := false
	for {
		for i+8 <= len(b) && !special(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			esc = true
			n, ok := escape(b, i)
			if !ok {
				return 0, false, false
			}
			i += n
		default:
			i++
		}
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
