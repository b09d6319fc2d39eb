package jsjson

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// StringCase is a JSON text and the string it decodes to; OK is false
// where it is not one string literal.
type StringCase struct {
	In, Want string
	OK       bool
}

// StringCases are the literals that every string decoder of the package
// (Unquote here, DecodeString in the external tests) reads alike; they
// differ on a lone surrogate, which each test adds.
var StringCases = []StringCase{
	{`"plain"`, "plain", true},
	{`""`, "", true},
	{`"a\nb\t\"c\"\\/\/\b\f\r"`, "a\nb\t\"c\"\\//\b\f\r", true},
	{`"\u00e9\u20AC"`, "é€", true},
	{`"\ud83d\ude00"`, "😀", true},
	{`"é"`, "é", true},
	{`"a" `, "", false},
	{` "a"`, "", false},
	{`"a`, "", false},
	{`"a\"`, "", false},
	{`"a\x"`, "", false},
	{`"\u12"`, "", false},
	{`"\u12g4"`, "", false},
	{"\"a\nb\"", "", false},
	{`"a"b"`, "", false},
	{`abc`, "", false},
	{`"`, "", false},
	{`1`, "", false},
}

func TestUnquote(t *testing.T) {
	tests := append(StringCases,
		StringCase{`"\ud800"`, "\xed\xa0\x80", true}, // a lone surrogate stays WTF-8
	)
	for _, tt := range tests {
		got, ok := Unquote([]byte(tt.In))
		if ok != tt.OK || ok && got != tt.Want {
			t.Errorf("Unquote(%q) = %q, %v; want %q, %v", tt.In, got, ok, tt.Want, tt.OK)
		}
	}
}

// FuzzUnquote checks Unquote against encoding/json on valid UTF-8 without
// surrogate escapes, where both must agree.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, `"\n"`, `"\u0041"`, `"x\"y"`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !utf8.Valid(b) {
			return // JavaScript and Go replace invalid bytes differently
		}
		got, ok := Unquote(b)
		var want string
		err := json.Unmarshal(b, &want)
		if len(b) == 0 || b[0] != '"' || b[len(b)-1] != '"' {
			err = json.Unmarshal([]byte("!"), &want) // only bare string literals count
		}
		if ok != (err == nil) {
			t.Fatalf("%q: ok %v, encoding/json error %v", b, ok, err)
		}
		if ok && err == nil && utf8.ValidString(got) && got != want {
			t.Fatalf("%q: %q, encoding/json %q", b, got, want)
		}
	})
}

// TestWellFormedBytes: each maximal ill-formed subsequence is one U+FFFD
// (WHATWG), as in a string the parser reads; valid bytes come back as they
// are.
func TestWellFormedBytes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain é", "plain é"},
		{"a\xffb", "a\uFFFDb"},
		{"\xe0\xa0", "\uFFFD"},                 // a truncated three-byte sequence is one
		{"\xe0\x80", "\uFFFD\uFFFD"},           // 0x80 may not follow 0xE0: two
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // a surrogate is not UTF-8
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	} {
		if got := string(WellFormedBytes([]byte(c.in))); got != c.want {
			t.Errorf("WellFormedBytes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
