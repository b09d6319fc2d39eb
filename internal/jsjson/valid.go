package jsjson

import "math/bits"

// Valid reports whether JSON.parse accepts b (read as UTF-8 text; invalid
// UTF-8 inside strings is accepted because Node decodes it to U+FFFD). It
// accepts surrounding JSON whitespace and any nesting depth, and does not
// allocate for nesting up to 64 levels.
//
// Valid is on piweb's hot path for session files of hundreds of megabytes,
// so string bodies, which make up most of a session, are skipped by
// ScanString, 64 bytes at a time.
func Valid(b []byte) bool {
	end := ValidEnd(b, skipWS(b, 0))
	return end >= 0 && skipWS(b, end) == len(b)
}

// ValidEnd is ValueEnd that validates: it returns the offset just after
// the JSON value that starts at b[i] when JSON.parse accepts that value,
// and -1 otherwise (including when i is out of range). What follows the
// value is not looked at. Like Valid, it accepts any nesting depth.
func ValidEnd(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return -1
	}
	if c := b[i]; c != '{' && c != '[' {
		return skipScalar(b, i) // most members are short scalars
	}
	return validContainerEnd(b, i, false)
}

// CompactEnd is ValidEnd for a value with no whitespace between its
// tokens (JSON.stringify's output without indent): whitespace anywhere
// outside a string makes it -1, even where JSON.parse would accept it. A
// value CompactEnd accepts therefore holds no raw line feed or carriage
// return (JSON.parse refuses them inside strings), so a line parser may
// scan a record before knowing where its line ends.
func CompactEnd(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return -1
	}
	if c := b[i]; c != '{' && c != '[' {
		return skipScalar(b, i)
	}
	return validContainerEnd(b, i, true)
}

// ws skips the whitespace at b[i], none when compact.
func ws(b []byte, i int, compact bool) int {
	if compact {
		return i
	}
	return skipWS(b, i)
}

// validContainerEnd is ValidEnd for the object or array at b[i]; compact
// for CompactEnd.
func validContainerEnd(b []byte, i int, compact bool) int {
	var stackBuf [64]byte
	stack := stackBuf[:0] // closing bracket of each open container
	for {
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '{':
			if i = ws(b, i+1, compact); i < len(b) && b[i] == '}' {
				i++
				break
			}
			if i = skipKey(b, i, compact); i < 0 {
				return -1
			}
			stack = append(stack, '}')
			continue
		case '[':
			if i = ws(b, i+1, compact); i < len(b) && b[i] == ']' {
				i++
				break
			}
			stack = append(stack, ']')
			continue
		default:
			if i = skipScalar(b, i); i < 0 {
				return -1
			}
		}
		// A value ended at i: close containers until the next value.
		for len(stack) > 0 {
			if i = ws(b, i, compact); i >= len(b) {
				return -1
			}
			top := stack[len(stack)-1]
			if b[i] == top {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return -1
			}
			if i = ws(b, i+1, compact); top == '}' {
				if i = skipKey(b, i, compact); i < 0 {
					return -1
				}
			}
			break
		}
		if len(stack) == 0 {
			return i
		}
	}
}

// skipKey skips `"key" :` and the whitespace after it (none when
// compact), returning -1 on error.
func skipKey(b []byte, i int, compact bool) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipString(b, i); i < 0 {
		return -1
	}
	if i = ws(b, i, compact); i >= len(b) || b[i] != ':' {
		return -1
	}
	return ws(b, i+1, compact)
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipScalar skips a string, number or literal at b[i], returning -1 on
// error.
func skipScalar(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case 't':
		return skipWord(b, i, "true")
	case 'f':
		return skipWord(b, i, "false")
	case 'n':
		return skipWord(b, i, "null")
	}
	return skipNumber(b, i)
}

func skipWord(b []byte, i int, w string) int {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return -1
	}
	return i + len(w)
}

// skipNumber skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// NumberEnd returns the offset after the JSON number that starts at b[i],
// or -1 when there is none, for scanners built on top of this package.
func NumberEnd(b []byte, i int) int { return skipNumber(b, i) }

func skipNumber[T string | []byte](b T, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return -1
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
			return -1
		}
		i = j
	}
	return i
}

func skipDigits[T string | []byte](b T, i int) int {
	for ; i+8 <= len(b); i += 8 { // eight at a time: usage counts, costs, times in ms
		if m := nonDigits(load64(b, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// nonDigits marks, in the high bit of each byte of w, the bytes that are
// no ASCII digit; the lowest mark is exact, higher ones may be spurious
// (a borrow or carry runs up from a lower byte that is no digit).
func nonDigits(w uint64) uint64 {
	below := w - ones*'0'          // high bit where a byte is below '0' (or from 0x80 on)
	above := w + ones*(0x80-'9'-1) // high bit where a byte is above '9'
	return (below | above | w) & highs
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stops returns a mask with the high bit of the lowest byte of x that is a
// quote, a backslash or below 0x20 set (higher bits may be set spuriously,
// lower ones never are). Zero means none of the eight bytes is special.
func stops(x uint64) uint64 {
	q := x ^ (ones * '"')
	s := x ^ (ones * '\\')
	return (((q - ones) &^ q) | ((s - ones) &^ s) | ((x - ones*0x20) &^ x)) & highs
}

// skipString skips the string starting with the quote at b[i], returning
// the index after its closing quote, or -1 if JSON.parse rejects it.
func skipString(b []byte, i int) int {
	end, _, ok := ScanString(b, i)
	if !ok {
		return -1
	}
	return end
}

// shortEscape[c] reports whether \c is a two-byte escape JSON.parse
// accepts.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// skipEscape skips the escape sequence at b[i] (a backslash).
func skipEscape(b []byte, i int) int {
	if i+1 >= len(b) {
		return -1
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2
	case 'u':
		if i+6 > len(b) {
			return -1
		}
		for _, c := range b[i+2 : i+6] {
			if !isHex(c) {
				return -1
			}
		}
		return i + 6
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
