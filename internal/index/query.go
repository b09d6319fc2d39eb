package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The query language piweb offers is small and forgiving: words are ANDed,
// "double quotes" make a phrase (an unclosed quote runs to the end), and a
// trailing * makes the word or phrase a prefix. Every unit reaches FTS5 as a
// quoted string, so that no user text is ever FTS5 syntax: operators (AND,
// OR, NOT, NEAR), column filters, parentheses and stray quotes are matched
// as words. FTS5 tokenizes inside the quotes; a unit without any word
// character matches everything, so units are dropped when they hold no
// letter or digit.

// term is one unit of a query.
type term struct {
	text   string
	phrase bool
	prefix bool
}

// parseQuery splits user text into terms.
func parseQuery(q string) []term {
	q = strings.ToValidUTF8(strings.ReplaceAll(q, "\x00", " "), "\uFFFD")
	var out []term
	for q != "" {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		var t term
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			if end < 0 {
				t.text, q = q[1:], ""
			} else {
				t.text, q = q[1:1+end], q[2+end:]
			}
			t.phrase = true
			if strings.HasPrefix(q, "*") {
				t.prefix, q = true, q[1:]
			}
		} else {
			end := strings.IndexFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
			if end < 0 {
				end = len(q)
			}
			t.text, q = q[:end], q[end:]
			if strings.HasSuffix(t.text, "*") {
				t.text, t.prefix = strings.TrimRight(t.text, "*"), true
			}
		}
		if hasWordChar(t.text) {
			out = append(out, t)
		}
	}
	return out
}

func hasWordChar(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

// ftsQuery returns the FTS5 MATCH expression for user text; ok is false
// when the text holds nothing to search for.
func ftsQuery(q string) (string, bool) {
	terms := parseQuery(q)
	if len(terms) == 0 {
		return "", false
	}
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t.text, `"`, `""`))
		b.WriteByte('"')
		if t.prefix {
			b.WriteByte('*')
		}
	}
	return b.String(), utf8.ValidString(b.String())
}
