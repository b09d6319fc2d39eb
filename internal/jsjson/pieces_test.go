package jsjson

import (
	"bytes"
	"testing"
)

// TestDecodedPieces checks that the pieces of a string, cut every few
// bytes, add up to DecodeString's text: escapes and surrogate pairs are
// never cut.
func TestDecodedPieces(t *testing.T) {
	for _, raw := range []string{
		`""`, `"abc"`, `"a\nb\"c\\d\/e"`, `"\ud83d\ude00x\ud83d\ude00"`, `"\ud83dx\ude00"`,
		`"\\ud83d\ude00"`, `"héllo wörld €€€ 😀😀"`, "\"\xe2\x82A\xed\xa0\x80z\"", `"\u00e9\u20ac\u0041"`,
		`"` + string(bytes.Repeat([]byte(`x\t€\u00e9\ud83d\ude00`), 50)) + `"`,
	} {
		want, ok := DecodeString([]byte(raw))
		if !ok {
			t.Fatalf("%s: invalid", raw)
		}
		for n := 1; n < 20; n++ {
			var got []byte
			for p := range DecodedPieces([]byte(raw), n) {
				got = append(got, p...)
			}
			if string(got) != want {
				t.Errorf("%s in pieces of %d: %q, want %q", raw, n, got, want)
			}
		}
	}
}
