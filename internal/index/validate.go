package index

import (
	"encoding/binary"
	"math/bits"

	"piweb/internal/jsjson"
)

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
		case ' ', '\t', '\r':
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
		end, _, ok := v.str(i)
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

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special marks, in the high bit of each byte of w, exactly the bytes that
// end a plain run of a JSON string: a quote, a backslash or a control
// character. No test borrows or carries across bytes (each byte's low seven
// bits plus 0x7F or 0x60 stay below 0x100), so every mark can be used, not
// only the lowest.
func special(w uint64) uint64 {
	const low7 = ones * 0x7F
	q := w ^ (ones * '"')
	s := w ^ (ones * '\\')
	isQ := (q&low7 + low7) | q
	isS := (s&low7 + low7) | s
	isC := (w&low7 + ones*0x60) | w
	return ^(isQ & isS & isC) & highs
}

// str validates the string at b[i] == '"' and returns the offset after it
// and whether it has escapes. Most strings are short keys and ids, read
// eight bytes at a time; after the first 16 bytes, a string (tool output,
// most of a session's bytes, with an escape every few dozen bytes) is read
// 64 bytes at a time with the bit masks of strBlock, which spares a hard
// to predict branch per escape.
func (v *validator) str(i int) (int, bool, bool) {
	b := v.b
	esc := false
	i++
	for words := 0; ; {
		if words >= 2 && i+64 <= len(b) {
			end, e, ok := strBlocks(b, i)
			if !ok || end >= 0 {
				return end, esc || e, ok
			}
			esc = esc || e
			i = -end - 1
			words = 0
		}
		for ; i+8 <= len(b); i += 8 {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			if words++; words >= 2 && i+72 <= len(b) {
				i += 8
				goto next
			}
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			return 0, false, false
		}
	found:
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return 0, false, false
		}
		esc = true
		if i+1 < len(b) && shortEscape[b[i+1]] {
			i += 2
		} else if n, ok := unicodeEscape(b, i); ok {
			i += n
		} else {
			return 0, false, false
		}
	next:
	}
}

// strBlocks validates string bytes from b[i], 64 at a time, while 64
// remain. It returns the offset after the closing quote, or, when it ran
// out of whole blocks inside the string, -1-i for the offset i to go on
// from; esc tells whether it saw escapes. Each block is one mask of its
// special bytes; in tool output nearly all are backslashes, so the branches
// below are well predicted, and an escaped quote or backslash is cleared
// from the mask before it is looked at.
func strBlocks(b []byte, i int) (end int, esc, ok bool) {
	escaped := uint64(0) // bit 0: b[i] is escaped by the previous block
	for ; i+64 <= len(b); i += 64 {
		m := blockMask((*[64]byte)(b[i:i+64])) &^ escaped
		escaped = 0
		for m != 0 {
			p := bits.TrailingZeros64(m)
			if c := b[i+p]; c != '\\' {
				return i + p + 1, esc, c == '"'
			}
			esc = true
			if i+p+1 >= len(b) || !shortEscape[b[i+p+1]] {
				if _, ok = unicodeEscape(b, i+p); !ok {
					return 0, esc, false
				}
			}
			if p == 63 {
				escaped = 1
			}
			m &= ^uint64(0) << (p + 2)
		}
	}
	if escaped != 0 { // the first byte of the rest is an escaped character
		i++
	}
	return -1 - i, esc, true
}

// blockMaskGo returns one bit per byte of the 64 bytes of b, set for the
// special bytes (quote, backslash, control character). blockMask is this,
// in SSE2 on amd64 (blockmask_amd64.s), where it is a tenth of a cold
// listing's time in Go.
func blockMaskGo(b *[64]byte) (m uint64) {
	for k := 0; k < 64; k += 8 {
		m |= compact(special(binary.LittleEndian.Uint64(b[k:]))) << k
	}
	return m
}

// compact gathers the high bits of the eight bytes of m into one byte.
func compact(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}

// escape returns the length of the escape sequence at b[i] == '\\'.
func escape(b []byte, i int) (int, bool) {
	if i+1 < len(b) && shortEscape[b[i+1]] {
		return 2, true
	}
	return unicodeEscape(b, i)
}

// shortEscape holds the characters of JSON's two-byte escapes.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// unicodeEscape returns the length of the \uXXXX escape at b[i].
func unicodeEscape(b []byte, i int) (int, bool) {
	if i+6 > len(b) || b[i+1] != 'u' {
		return 0, false
	}
	for _, c := range b[i+2 : i+6] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return 0, false
		}
	}
	return 6, true
}
