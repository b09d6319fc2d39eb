package jsjson

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// IsCanonical reports whether b is exactly JSON.stringify(JSON.parse(b)):
// valid JSON with no whitespace, numbers in JavaScript's shortest form,
// strings escaped as JSON.stringify escapes them (and valid UTF-8), no
// duplicate keys, and array-index keys first in ascending order. Lines that
// pi wrote are canonical. It does not allocate for objects of up to 16 keys.
func IsCanonical(b []byte) bool {
	c := canonChecker{b: b}
	return c.value() && c.i == len(b)
}

type canonChecker struct {
	b     []byte
	i     int
	depth int
}

func (c *canonChecker) value() bool {
	if c.i >= len(c.b) {
		return false
	}
	switch c.b[c.i] {
	case '{':
		return c.object()
	case '[':
		return c.array()
	case '"':
		return c.string()
	case 't', 'f', 'n':
		c.i = skipScalar(c.b, c.i)
		return c.i >= 0
	}
	return c.number()
}

func (c *canonChecker) array() bool {
	if c.depth++; c.depth > MaxDepth {
		return false
	}
	c.i++
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		c.depth--
		return true
	}
	for {
		if !c.value() || c.i >= len(c.b) {
			return false
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			c.depth--
			return true
		default:
			return false
		}
	}
}

func (c *canonChecker) object() bool {
	if c.depth++; c.depth > MaxDepth {
		return false
	}
	c.i++
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		c.depth--
		return true
	}
	var keys keySet
	for {
		start := c.i
		if c.i >= len(c.b) || c.b[c.i] != '"' || !c.string() || !keys.add(c.b[start+1:c.i-1]) {
			return false
		}
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return false
		}
		c.i++
		if !c.value() || c.i >= len(c.b) {
			return false
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case '}':
			c.i++
			c.depth--
			return true
		default:
			return false
		}
	}
}

// keySet checks the keys of one canonical object in order. Canonical
// strings have a single spelling, so raw key bytes can be compared.
type keySet struct {
	small  [16][]byte
	n      int
	big    map[string]struct{}
	named  bool  // a non-index key was seen
	nextIx int64 // smallest array index key still allowed
}

func (k *keySet) add(key []byte) bool {
	if ix, ok := arrayIndex(string(key)); ok {
		if k.named || int64(ix) < k.nextIx {
			return false
		}
		k.nextIx = int64(ix) + 1
		return true
	}
	k.named = true
	if k.big != nil {
		if _, dup := k.big[string(key)]; dup {
			return false
		}
		k.big[string(key)] = struct{}{}
		return true
	}
	for _, prev := range k.small[:k.n] {
		if bytes.Equal(prev, key) {
			return false
		}
	}
	if k.n < len(k.small) {
		k.small[k.n] = key
		k.n++
		return true
	}
	k.big = make(map[string]struct{}, 64)
	for _, prev := range k.small {
		k.big[string(prev)] = struct{}{}
	}
	k.big[string(key)] = struct{}{}
	return true
}

// string checks that the string at c.i is spelled as JSON.stringify
// spells it: valid UTF-8, and only the escapes it writes.
func (c *canonChecker) string() bool {
	b := c.b
	for i := c.i + 1; ; {
		j, high := scanPlain(b, i)
		if high && !utf8.Valid(b[i:j]) || j >= len(b) {
			return false
		}
		switch b[j] {
		case '"':
			c.i = j + 1
			return true
		case '\\':
			if i = canonicalEscape(b, j); i < 0 {
				return false
			}
		default:
			return false // control character
		}
	}
}

// canonicalEscape checks the escape at b[i] and returns the index after it,
// or -1 if JSON.stringify would not write it.
func canonicalEscape(b []byte, i int) int {
	if i+1 >= len(b) {
		return -1
	}
	switch b[i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return i + 2
	case 'u':
	default:
		return -1
	}
	cu, ok := hex4(b, i+2, true)
	switch {
	case !ok:
		return -1
	case cu < 0x20:
		if cu == '\b' || cu == '\f' || cu == '\n' || cu == '\r' || cu == '\t' {
			return -1
		}
	case cu >= 0xD800 && cu <= 0xDBFF:
		// A high surrogate followed by a low one is a pair, which
		// JSON.stringify writes as raw UTF-8.
		if i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
			if lo, ok := hex4(b, i+8, false); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return -1
			}
		}
	case cu >= 0xDC00 && cu <= 0xDFFF:
	default:
		return -1
	}
	return i + 6
}

// number checks that the number at c.i is in JavaScript's shortest form.
func (c *canonChecker) number() bool {
	start := c.i
	end := skipNumber(c.b, start)
	if end < 0 {
		return false
	}
	c.i = end
	lit := c.b[start:end]
	if isShortInt(lit) {
		return string(lit) != "-0"
	}
	f, _ := strconv.ParseFloat(string(lit), 64)
	var buf [32]byte
	return bytes.Equal(AppendNumber(buf[:0], f), lit)
}

// isShortInt reports whether a valid number literal is an integer of at
// most 15 digits, which a float64 holds exactly; apart from -0 such a
// literal is already canonical.
func isShortInt[T string | []byte](lit T) bool {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}
