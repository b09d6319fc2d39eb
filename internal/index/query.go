package index

import (
	"strings"
	"unicode"
)

// The query language piweb offers is small and forgiving: words are ANDed,
// "double quotes" make a phrase (an unclosed quote runs to the end), and a
// trailing * makes the word or phrase a prefix. Every unit reaches FTS5 as a
// quoted string, so that no user text is ever FTS5 syntax: operators (AND,
// OR, NOT, NEAR), column filters, parentheses and stray quotes are matched
// as words. FTS5 tokenizes inside the quotes; a unit without any word
// character matches everything, so units are dropped when they hold no
// letter or digit. A prefix unit may be rewritten as an OR of the complete
// words it stands for (vocab.go), which is the same set of rows.

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

// quote returns s as an FTS5 string.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// expr returns the FTS5 expression of one term; ok is false when the term
// matches nothing. expand, when not nil, gives the complete words that
// start with a prefix (see asciiWords), or false to keep FTS5's own prefix
// query.
func (t term) expr(expand func(prefix string) ([]string, bool)) (string, bool) {
	if !t.prefix {
		return quote(t.text), true
	}
	if expand != nil {
		if words, ok := asciiWords(t.text); ok {
			if full, ok := expand(words[len(words)-1]); ok {
				return orOf(words[:len(words)-1], full), len(full) > 0
			}
		}
	}
	return quote(t.text) + "*", true
}

// orOf returns the phrases head+w for each w in last, ORed.
func orOf(head, last []string) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, w := range last {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(quote(strings.Join(append(head[:len(head):len(head)], w), " ")))
	}
	b.WriteByte(')')
	return b.String()
}

// ftsQuery returns the FTS5 MATCH expression for user text; ok is false
// when the text holds nothing to search for or cannot match.
func ftsQuery(q string, expand func(string) ([]string, bool)) (string, bool) {
	terms := parseQuery(q)
	if len(terms) == 0 {
		return "", false
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		var ok bool
		if parts[i], ok = t.expr(expand); !ok {
			return "", false
		}
	}
	return strings.Join(parts, " AND "), true
}

// asciiWords splits text the way FTS5's unicode61 tokenizer does when the
// text is ASCII: runs of letters and digits, folded to lower case, all
// else separates. ok is false for text with other characters, whose
// tokens only FTS5 knows for sure.
func asciiWords(s string) (words []string, ok bool) {
	start := -1
	for i := 0; i <= len(s); i++ {
		var c byte = ' '
		if i < len(s) {
			c = s[i]
		}
		if c >= 0x80 {
			return nil, false
		}
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		switch {
		case alnum && start < 0:
			start = i
		case !alnum && start >= 0:
			words = append(words, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	return words, len(words) > 0
}
