package jsjson

import (
	"math/bits"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plain[c] reports whether the ASCII byte c is copied unchanged into a JSON
// string by JSON.stringify. Bytes from 0x80 up are handled as UTF-8.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as JSON.stringify would quote it: \" \\ \b \f \n \r
// \t, \u00xx (lowercase) for other control characters, and every other
// character as raw UTF-8 (including <, >, &, /, U+007F, U+2028 and U+2029).
//
// s is read the way Node reads a UTF-8 file: each maximal ill-formed byte
// subsequence (WHATWG Encoding Standard, "maximal subpart" rule) becomes one
// U+FFFD. For example "\xe2\x82A" (a truncated "€" then "A") is written as
// "�A" and "\xed\xa0\x80" (an encoded surrogate) as "���".
func AppendString(dst []byte, s string) []byte {
	return appendString(dst, s, false)
}

// appendString is AppendString; with wtf8 set, three-byte encodings of
// surrogate code points (which only Parse produces) are written as \udxxx
// escapes instead of being replaced.
func appendString(dst []byte, s string, wtf8 bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = skipASCII(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			dst = appendEscape(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n != 1 {
			i += n
			continue
		}
		dst = append(dst, s[start:i]...)
		if cu, ok := surrogateAt(s[i:]); ok && wtf8 {
			dst = appendU(dst, cu)
			i += 3
		} else {
			dst = append(dst, "\uFFFD"...)
			i += invalidLen(s[i:])
		}
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// skipASCII returns the index of the first byte from s[i] on that is not
// copied unchanged by JSON.stringify, or a byte from 0x80 up (or len(s)).
// It checks eight bytes at a time.
func skipASCII(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		if m := stops(x) | x&highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && plain[s[i]] {
		i++
	}
	return i
}

// appendEscape appends the JSON.stringify escape of the ASCII byte c.
func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return appendU(dst, rune(c))
}

// appendU appends the escape \uXXXX with lowercase hex digits.
func appendU(dst []byte, cu rune) []byte {
	return append(dst, '\\', 'u', hexDigits[cu>>12&15], hexDigits[cu>>8&15],
		hexDigits[cu>>4&15], hexDigits[cu&15])
}

// surrogateAt reports whether s starts with the WTF-8 (generalised UTF-8)
// encoding of a surrogate code point, and returns that code point.
func surrogateAt(s string) (rune, bool) {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2] < 0x80 || s[2] > 0xBF {
		return 0, false
	}
	return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), true
}

// appendSurrogate appends the WTF-8 encoding of the surrogate code point cu.
func appendSurrogate(dst []byte, cu rune) []byte {
	return append(dst, 0xED, byte(0x80|cu>>6&0x3F), byte(0x80|cu&0x3F))
}

// invalidLen returns the length of the maximal subpart at the start of s,
// which must begin with an ill-formed UTF-8 sequence. This is the number of
// bytes the WHATWG UTF-8 decoder consumes before it emits one U+FFFD: a lead
// byte plus the continuation bytes that were still acceptable for it.
func invalidLen(s string) int {
	c := s[0]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		need = 3
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(s) && s[n] >= lo && s[n] <= hi {
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

// wellFormed returns s with every maximal ill-formed UTF-8 subsequence
// replaced by U+FFFD, which is the string Node gets when it decodes s.
func wellFormed(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendWellFormed(make([]byte, 0, len(s)+8), s))
}

// WellFormedBytes returns b with every maximal ill-formed UTF-8
// subsequence replaced by U+FFFD, as Node's decoder reads it (where Go
// would replace every invalid byte); b itself when it is valid.
func WellFormedBytes(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return appendWellFormed(make([]byte, 0, len(b)+16), string(b))
}

// appendWellFormed appends s to dst with WHATWG replacement of invalid
// UTF-8.
func appendWellFormed(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return append(dst, s...)
	}
	start := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || n != 1 {
			i += n
			continue
		}
		dst = append(append(dst, s[start:i]...), "\uFFFD"...)
		i += invalidLen(s[i:])
		start = i
	}
	return append(dst, s[start:]...)
}

// fromWTF8 converts an internal WTF-8 string to UTF-8 by replacing each
// lone surrogate with U+FFFD, as Node's UTF-8 encoder does.
func fromWTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	start := 0
	for i := 0; i < len(s); i++ {
		if _, ok := surrogateAt(s[i:]); ok {
			b = append(append(b, s[start:i]...), "\uFFFD"...)
			i += 2
			start = i + 1
		}
	}
	return string(append(b, s[start:]...))
}

// load64 returns the eight bytes of s at i as a little-endian word (the
// compiler turns this into one load).
func load64[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
