package jsjson

import (
	"bytes"
	"iter"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// This file is the raw view: reading a few members of JSON text without
// decoding the rest. Session lines are mostly tool output that the index,
// the tree preview and the RPC reader never look at, so they find the
// members they need by skipping values (a string at memchr speed) instead of
// decoding whole lines.
//
// The raw view does not validate. Its callers read text that was validated
// before (session lines) or that a trusted writer produced (pi's RPC
// output), but a session file can be corrupt and pi's stdout can carry a
// stray line, so every function here has a contract for malformed input
// too: it never panics, never reads outside its argument, always ends, and
// takes time linear in the bytes it looks at. On malformed input the
// results are unspecified beyond that, and every value it returns is a
// subslice of its argument.

// SkipSpace returns the offset of the first byte of b at or after i that is
// not JSON white space (space, tab, line feed, carriage return), or len(b).
func SkipSpace(b []byte, i int) int { return skipWS(b, max(i, 0)) }

// ValueEnd returns the offset just after the JSON value that starts at
// b[i], or -1 when no value starts there (i out of range, or b[i] white
// space or a delimiter) or it does not end within b.
//
// It finds ends, it does not check values: a string ends at the first
// quote after an even number of backslashes, a container at the bracket
// that balances its opening one (counting { and [ alike, so `{]` passes),
// and a number or literal at the next white space, delimiter or quote.
// On valid JSON it returns exactly the end JSON.parse would find.
func ValueEnd(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return rawStringEnd(b, i)
	case '{', '[':
		return containerEnd(b, i)
	}
	if scalarStop[b[i]] {
		return -1
	}
	for i < len(b) && !scalarStop[b[i]] {
		i++
	}
	return i
}

// scalarStop marks the bytes that end a number or literal: white space,
// the structural characters and the quote.
var scalarStop = [256]bool{' ': true, '\t': true, '\n': true, '\r': true,
	',': true, ':': true, '{': true, '}': true, '[': true, ']': true, '"': true}

// rawStringEnd returns the offset after the string that starts with the
// quote at b[i], or -1 when it is not closed. The closing quote is found
// with bytes.IndexByte (vectorized), which is why tool output costs little
// to skip; the backslash count before a candidate stops at the opening
// quote, so the scan stays linear.
func rawStringEnd(b []byte, i int) int {
	start := i
	for i++; ; {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		n := 0
		for p := q - 1; p > start && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// containerEnd returns the offset after the object or array that starts at
// b[i], or -1 when its brackets do not balance within b.
func containerEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			if i = rawStringEnd(b, i); i < 0 {
				return -1
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// Members returns an iterator over the members of the JSON object obj
// (white space around it allowed), yielding each key still quoted, as it is
// in obj, and the raw value. Duplicate keys are all yielded, in order;
// JSON.parse keeps the last.
//
// On malformed input the iteration stops where obj stops looking like an
// object (a missing colon or comma, a value ValueEnd cannot end), so a
// corrupt object yields a prefix of its members. Bytes after the closing
// brace are not looked at.
func Members(obj []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(key, val []byte) bool) { members(obj, yield) }
}

func members(obj []byte, yield func(key, val []byte) bool) {
	for k, v, i := firstMember(obj); k != nil; k, v, i = nextMember(obj, i) {
		if !yield(k, v) {
			return
		}
	}
}

// firstMember returns the first member of obj and the offset after it, or
// a nil key when there is none. Field and FirstField loop over
// firstMember and nextMember directly: calling the iterator's yield
// function per member measured 8% slower on the RPC reader's lookup of an
// event's type (agent's BenchmarkSkimType).
func firstMember(obj []byte) (key, val []byte, next int) {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, nil, 0
	}
	return memberAt(obj, skipWS(obj, i+1))
}

// nextMember returns the member after the one that ended at obj[i], as
// firstMember does.
func nextMember(obj []byte, i int) (key, val []byte, next int) {
	if i = skipWS(obj, i); i >= len(obj) || obj[i] != ',' {
		return nil, nil, 0
	}
	return memberAt(obj, skipWS(obj, i+1))
}

// memberAt reads the member whose key starts at obj[i].
func memberAt(obj []byte, i int) (key, val []byte, next int) {
	if i >= len(obj) || obj[i] != '"' {
		return nil, nil, 0
	}
	k := rawStringEnd(obj, i)
	if k < 0 {
		return nil, nil, 0
	}
	v := skipWS(obj, k)
	if v >= len(obj) || obj[v] != ':' {
		return nil, nil, 0
	}
	v = skipWS(obj, v+1)
	end := ValueEnd(obj, v)
	if end < 0 {
		return nil, nil, 0
	}
	return obj[i:k], obj[v:end], end
}

// Elements returns an iterator over the raw elements of the JSON array arr
// (white space around it allowed). On malformed input the iteration stops
// where arr stops looking like an array, as Members does for objects; an
// element is never empty.
func Elements(arr []byte) iter.Seq[[]byte] {
	return func(yield func(el []byte) bool) { elements(arr, yield) }
}

func elements(arr []byte, yield func(el []byte) bool) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	for i = skipWS(arr, i+1); i < len(arr) && arr[i] != ']'; {
		end := ValueEnd(arr, i)
		if end < 0 || !yield(arr[i:end]) {
			return
		}
		if i = skipWS(arr, end); i >= len(arr) || arr[i] != ',' {
			return
		}
		i = skipWS(arr, i+1)
	}
}

// Field returns the raw value of the member of obj named name, the last one
// when the key repeats (as JSON.parse keeps it), or nil when there is none.
// It reads the whole object; FirstField stops at the first match.
func Field(obj []byte, name string) []byte {
	var out []byte
	for k, v, i := firstMember(obj); k != nil; k, v, i = nextMember(obj, i) {
		if KeyIs(k, name) {
			out = v
		}
	}
	return out
}

// FirstField is Field for text whose writer never repeats a key, such as
// JSON.stringify's output: it returns the first match and skips the rest of
// obj, which makes reading the "type" of a large RPC event cost nothing
// when pi writes it first.
func FirstField(obj []byte, name string) []byte {
	for k, v, i := firstMember(obj); k != nil; k, v, i = nextMember(obj, i) {
		if KeyIs(k, name) {
			return v
		}
	}
	return nil
}

// KeyIs reports whether the quoted key, as Members yields it, decodes to
// name. Keys without escapes, which is every key pi writes, are compared
// without decoding.
func KeyIs(key []byte, name string) bool {
	n := len(key)
	if n == len(name)+2 && key[0] == '"' && key[n-1] == '"' && string(key[1:n-1]) == name {
		return strings.IndexByte(name, '\\') < 0
	}
	if bytes.IndexByte(key, '\\') < 0 {
		return false
	}
	s, ok := DecodeString(key)
	return ok && s == name
}

// DecodeString decodes raw, which must be exactly one JSON string literal
// as JSON.parse accepts it; otherwise it returns "" and false. Escapes are
// decoded and surrogate pairs joined; a lone surrogate escape, which a Go
// string cannot hold as text, becomes U+FFFD. Other bytes are kept as they
// are, invalid UTF-8 included, so that the result is what the session
// parser's Entry.String returns for the same member and a scanner built on
// either agrees with the other; AppendString replaces invalid UTF-8 the way
// Node does when the text is written out.
//
// Unquote differs in keeping lone surrogates (for Parse's round trip).
func DecodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || skipString(raw, 0) != len(raw) {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	return decoded(body), true
}

// decoded is the text of a string body with escapes, in one allocation
// (a message's text can be tens of MB: issue 21): the bytes, which
// nothing else refers to or changes, become the string.
func decoded(body []byte) string {
	b := appendDecoded(make([]byte, 0, len(body)), body)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// DecodeStringPrefix is DecodeString for at most about n bytes of the
// string's text (the first n bytes of its JSON body, up to the end of an
// escape cut there): a reader that needs only a prefix of a huge string
// does not decode it whole. cut reports that text was left out.
func DecodeStringPrefix(raw []byte, n int) (s string, cut, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || skipString(raw, 0) != len(raw) {
		return "", false, false
	}
	body := raw[1 : len(raw)-1]
	if len(body) <= n {
		s, ok = DecodeString(raw)
		return s, false, ok
	}
	end := escapeEnd(body, n)
	return decoded(body[:end]), end < len(body), true
}

// escapeEnd returns n, or the end of the escape that goes on at n, in a
// valid string body.
func escapeEnd(body []byte, n int) int {
	i := 0
	for i < n {
		j := bytes.IndexByte(body[i:n], '\\')
		if j < 0 {
			return n
		}
		i += j + 2
		if body[i-1] == 'u' {
			i += 4
		}
	}
	return i
}

// appendDecoded appends the decoded text of a valid string body.
func appendDecoded(out, s []byte) []byte {
	for i := 0; i < len(s); {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			return append(out, s[i:]...)
		}
		out = append(out, s[i:i+j]...)
		i += j
		switch c := s[i+1]; c {
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
			r, n := decodeU(s, i)
			out = utf8.AppendRune(out, r)
			i += n
			continue
		default: // " \ /
			out = append(out, c)
		}
		i += 2
	}
	return out
}

// decodeU decodes the \uXXXX escape at s[i], joined with a following low
// surrogate escape when it is a high surrogate, and returns the rune (U+FFFD
// for a lone surrogate) and the bytes read.
func decodeU(s []byte, i int) (rune, int) {
	r, _ := hex4(s, i+2, false)
	if r >= 0xD800 && r < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
		if lo, _ := hex4(s, i+8, false); lo >= 0xDC00 && lo < 0xE000 {
			return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, 12
		}
	}
	if r >= 0xD800 && r < 0xE000 {
		return utf8.RuneError, 6
	}
	return r, 6
}

// DecodedPieces yields the text of a JSON string raw (as DecodeString
// decodes it) in pieces of about n bytes, cut between characters and never
// inside an escape or between the two escapes of a surrogate pair: a
// writer of a string of tens of MB (an export) does not hold it whole
// (issue 21). The piece is reused: copy what is kept. Nothing is yielded
// for an invalid string.
func DecodedPieces(raw []byte, n int) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if len(raw) < 2 || raw[0] != '"' || skipString(raw, 0) != len(raw) {
			return
		}
		body := raw[1 : len(raw)-1]
		var buf []byte
		for i := 0; i < len(body); {
			j := pieceEnd(body, i, n)
			buf = appendDecoded(buf[:0], body[i:j])
			if !yield(buf) {
				return
			}
			i = j
		}
	}
}

// pieceEnd is where the piece of a valid string body that starts at i
// ends: about n bytes on, at the start of a character, after an escape
// (and after the low half of a surrogate pair).
func pieceEnd(body []byte, i, n int) int {
	if len(body)-i <= n {
		return len(body)
	}
	j := i + escapeEnd(body[i:], n)
	for k := 0; k < utf8.UTFMax-1 && j < len(body) && j > i+1 && !utf8.RuneStart(body[j]); k++ {
		j--
	}
	for j+6 <= len(body) && j >= i+6 && body[j] == '\\' && body[j+1] == 'u' && body[j-6] == '\\' && body[j-5] == 'u' {
		if r, _ := hex4(body, j-4, false); r < 0xD800 || r >= 0xDC00 {
			break
		}
		j += 6 // the low half joins its high half (or is decoded alone, as DecodeString would)
	}
	return j
}
