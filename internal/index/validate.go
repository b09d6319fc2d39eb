package index

import "piweb/internal/jsjson"

// validObject reports whether line is exactly one JSON object (what
// JSON.parse accepts, white space other than newlines around it allowed).
// It must never accept what JSON.parse rejects, and may reject unusual
// valid lines (escaped keys, newlines as white space), which then go
// through the session parser.
func validObject(line []byte) bool {
	var r record
	end, ok := r.scan(line, 0)
	return ok && end == len(line)
}

// record is what the listing pass needs of a line, found while validating
// it: its top-level members and those of its top-level "message" object,
// so that no field needs a second scan. The slices are reused from line
// to line.
type record struct {
	members, msg []span
	// msgEsc is set when a key of message has escapes; contentNull when
	// message.content is an array with a null element (pi's text
	// extraction throws on it).
	msgEsc, contentNull bool
}

// scan validates the JSON object that starts, after white space, at
// data[i], and returns the offset after the white space that follows it:
// the line's newline, or len(data). ok is false when there is no valid
// object there or something else follows it on the line. Newlines are
// never white space here, so scan stops at the end of the line without
// looking for it first.
func (r *record) scan(data []byte, i int) (int, bool) {
	r.members, r.msg, r.msgEsc, r.contentNull = r.members[:0], r.msg[:0], false, false
	v := validator{b: data, r: r, wantMsg: true}
	if i = v.ws(i); i >= len(data) || data[i] != '{' {
		return i, false
	}
	var ok bool
	r.members, i, ok = v.object(i, r.members, true)
	if !ok || r.msgEsc {
		return i, false
	}
	i = v.ws(i)
	return i, i == len(data) || data[i] == '\n'
}

// span is a top-level member: the key without quotes and the raw value.
type span struct {
	key, val []byte
}

type validator struct {
	b     []byte
	depth int
	r     *record
	// wantMsg is set until the top-level "message" object is found.
	wantMsg bool
}

const maxDepth = 512

func (v *validator) ws(i int) int {
	for i < len(v.b) {
		switch v.b[i] {
		case ' ', '\t':
			i++
		case '\r':
			// readline (pi's listing) ends a line at a lone CR: such a
			// line goes to the session parser.
			if i+1 < len(v.b) && v.b[i+1] != '\n' {
				return i
			}
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
		kEnd, esc, ok := jsjson.ScanString(v.b, i)
		if !ok || (top && esc) {
			return members, 0, false
		}
		if esc && record {
			v.r.msgEsc = true
		}
		key := v.b[i+1 : kEnd-1]
		if i = v.ws(kEnd); i >= len(v.b) || v.b[i] != ':' {
			return members, 0, false
		}
		i = v.ws(i + 1)
		var end int
		switch {
		case top && v.wantMsg && string(key) == "message" && i < len(v.b) && v.b[i] == '{':
			v.wantMsg = false
			v.r.msg, end, ok = v.objectRec(i, v.r.msg, false, true)
		case record && !top && string(key) == "content" && i < len(v.b) && v.b[i] == '[':
			end, ok = v.array(i, true)
		default:
			end, ok = v.value(i)
		}
		if !ok {
			return members, 0, false
		}
		if record {
			// Grown, then set field by field: append(members, span{...})
			// built the span on the stack and copied it with 16-byte
			// loads of 8-byte stores, a store-forwarding stall that was a
			// quarter of objectRec's time.
			members = append(members, span{})
			sp := &members[len(members)-1]
			sp.key, sp.val = key, v.b[i:end]
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

// array validates the array at b[i] == '['; with noteNull it notes a null
// element in the record (contentNull).
func (v *validator) array(i int, noteNull bool) (int, bool) {
	if v.depth++; v.depth > maxDepth {
		return 0, false
	}
	defer func() { v.depth-- }()
	i = v.ws(i + 1)
	if i < len(v.b) && v.b[i] == ']' {
		return i + 1, true
	}
	for {
		if noteNull && i < len(v.b) && v.b[i] == 'n' {
			v.r.contentNull = true
		}
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
		end, _, ok := jsjson.ScanString(v.b, i)
		return end, ok
	case '{':
		_, end, ok := v.object(i, nil, false)
		return end, ok
	case '[':
		return v.array(i, false)
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
