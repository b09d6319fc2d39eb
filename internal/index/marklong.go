package index

import (
	"strconv"
	"strings"
	"unicode"
)

// FTS5's highlight() copies the text marked so far at each mark, so its
// cost grows with the square of a text's matches: a one-letter or common
// word over an 8 MB message took minutes (issue 21). Texts up to
// maxHighlight bytes are marked by it; of a longer one, search reads the
// first longPrefix characters, flagged by a leading \x01, and marks the
// query's words in them in Go (markLong), in linear time. Matches beyond
// that prefix still make the entry a hit; its snippet and score come from
// the prefix.
const (
	maxHighlight = 8 << 10
	longPrefix   = 64 << 10
)

// markedSQL is a candidate's text with its matches marked.
var markedSQL = `CASE WHEN length(CAST(fts.text AS BLOB)) <= ` + strconv.Itoa(maxHighlight) +
	` THEN highlight(fts, 0, char(2), char(3)) ELSE char(1) || substr(fts.text, 1, ` + strconv.Itoa(longPrefix) + `) END`

// markLongs marks the texts of the candidates that highlight() left out.
func markLongs(cs []cand, q string) {
	var terms []term
	for i := range cs {
		if !strings.HasPrefix(cs[i].marked, "\x01") {
			continue
		}
		if terms == nil {
			terms = parseQuery(q)
		}
		cs[i].marked = markLong(cs[i].marked[1:], terms)
	}
}

// markLong marks in text the words of the query's terms as \x02...\x03:
// a word equal to a term's word (case folded), or starting with the last
// word of a prefix term. Words are runs of letters and digits, as the
// tokenizer sees them; a phrase's words are marked one by one.
func markLong(text string, terms []term) string {
	exact, prefixes := map[string]bool{}, []string(nil)
	for _, t := range terms {
		words := strings.FieldsFunc(strings.ToLower(t.text), notWordRune)
		for i, w := range words {
			if t.prefix && i == len(words)-1 {
				prefixes = append(prefixes, w)
			} else {
				exact[w] = true
			}
		}
	}
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	start := -1
	flush := func(end int) {
		w := strings.ToLower(text[start:end])
		hit := exact[w]
		for _, p := range prefixes {
			hit = hit || strings.HasPrefix(w, p)
		}
		if hit {
			b.WriteByte(2)
			b.WriteString(text[start:end])
			b.WriteByte(3)
		} else {
			b.WriteString(text[start:end])
		}
		start = -1
	}
	for i, r := range text {
		switch word := !notWordRune(r); {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			flush(i)
		}
		if start < 0 {
			b.WriteRune(r)
		}
	}
	if start >= 0 {
		flush(len(text))
	}
	return b.String()
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsNumber(r)
}
