package pisession

import "unicode/utf8"

// pi reads files with Node's UTF-8 decoder, which replaces each maximal
// invalid subsequence with one U+FFFD (the WHATWG rule), where Go would
// replace every invalid byte. piweb keeps the raw bytes of every line and
// applies Node's rule only to JSON it hands to others, so that they see what
// pi sees.

// wellFormed returns b with invalid UTF-8 replaced as Node's decoder does;
// b itself when it is valid.
func wellFormed(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		out = append(out, "\uFFFD"...)
		i += maximalSubpart(b[i:])
	}
	return out
}

// maximalSubpart returns the length of the invalid sequence at the start of
// b that Node turns into a single U+FFFD: a lead byte and the continuation
// bytes that were still allowed after it.
func maximalSubpart(b []byte) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	}
	j := 1
	for ; j <= need && j < len(b); j++ {
		if b[j] < lo || b[j] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return j
}
