package jsjson

import (
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	cut := func(s string, n int, want string) {
		t.Helper()
		if got := Cut(s, n); got != want {
			t.Errorf("Cut(%q, %d) = %q, want %q", s, n, got, want)
		}
		if got := string(Cut([]byte(s), n)); got != want {
			t.Errorf("Cut([]byte(%q), %d) = %q, want %q", s, n, got, want)
		}
	}
	cut("abc", 5, "abc")
	cut("abc", 3, "abc")
	cut("abcdef", 3, "abc")
	cut("aé", 2, "a")                                              // é is 2 bytes: not split
	cut("a€b", 3, "a")                                             // € is 3 bytes
	cut("😀x", 3, "")                                               // 4 bytes, cut inside: back to its start
	cut("ab😀", 4, "ab")                                            // the lookback finds the lead byte
	cut("a"+strings.Repeat("\x80", 9), 6, "a\x80\x80\x80\x80\x80") // no lead byte 3 back: cut at n
	cut("", 0, "")
}
