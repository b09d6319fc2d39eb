package jsjson

// Unquote decodes one JSON string literal, quotes included, into its
// contents as Parse would (WTF-8: a lone surrogate escape stays a
// surrogate); ok is false when b is not exactly one string literal. It is
// the fast way to read a string member found by a raw scanner, without the
// reflection of encoding/json.
func Unquote(b []byte) (s string, ok bool) {
	if len(b) < 2 || b[0] != '"' {
		return "", false
	}
	p := parser{s: string(b)}
	s, err := p.string()
	return s, err == nil && p.i == len(b)
}
