package jsjson

import "unicode/utf8"

// Cut is s cut to at most n bytes without splitting a character: before
// a UTF-8 continuation byte only when it is one of a valid sequence's (at
// most 3 bytes back), else at n, so invalid text never shrinks to nothing.
// The result shares s's memory (strings.Clone it to keep a little of a big
// string).
func Cut[T ~string | ~[]byte](s T, n int) T {
	if len(s) <= n {
		return s
	}
	for k := n; k > n-utf8.UTFMax && k >= 0; k-- {
		if utf8.RuneStart(s[k]) {
			return s[:k]
		}
	}
	return s[:n]
}
