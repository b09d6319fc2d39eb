package jsjson_test

import (
	"testing"

	"piweb/internal/jsjson"
)

// TestSkipDigits checks the eight-at-a-time digit run against a byte
// loop for every byte value at every place of a run of sixteen, so that
// no borrow or carry between bytes is taken for the run's end.
func TestSkipDigits(t *testing.T) {
	want := func(b []byte, i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	for n := 0; n <= 17; n++ {
		for p := range 17 {
			for c := range 256 {
				b := []byte("1234567890123456789")[:n]
				if p < n {
					b[p] = byte(c)
				}
				for _, start := range []int{0, 1} {
					if start > n {
						continue
					}
					if got, w := jsjson.SkipDigits(b, start), want(b, start); got != w {
						t.Fatalf("skipDigits(%q, %d) = %d, want %d", b, start, got, w)
					}
				}
			}
		}
	}
}
