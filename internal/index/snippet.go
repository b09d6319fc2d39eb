package index

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippets are cut in Go from the text FTS5's highlight() marked for the
// ranking, so that the hits cost no second full-text query: with a prefix
// rewritten into hundreds of words, each MATCH costs hundreds of lookups.
// A snippet is a window of snippetWords words of the entry's text (words
// are runs of letters and digits, as the tokenizer sees them) that holds
// the most matches, starting a few words before its first match; "…"
// marks text cut off at either end.

// snippetWords is the length of a snippet in words.
const snippetWords = 16

// lead is how many words a snippet shows before its first match.
const lead = 4

// piece is a word or a match of a marked text, with the text before it.
type piece struct {
	start, end int // byte range in the unmarked text
	match      bool
}

// snippet returns the spans of the best window of n words of a marked text.
func snippet(marked string, n int) []Span {
	text, pieces := splitMarked(marked)
	if len(pieces) == 0 {
		return []Span{{Text: text}}
	}
	first := bestWindow(pieces, n)
	last := min(len(pieces), first+n) - 1
	from, to := pieces[first].start, pieces[last].end
	if first == 0 {
		from = 0
	}
	if last == len(pieces)-1 {
		to = len(text)
	}
	var out []Span
	if from > 0 {
		out = append(out, Span{Text: "…"})
	}
	at := from
	for _, p := range pieces[first : last+1] {
		if p.match {
			out = appendText(out, text[at:p.start], false)
			out = append(out, Span{Text: text[p.start:p.end], Match: true})
			at = p.end
		}
	}
	out = appendText(out, text[at:to], false)
	if to < len(text) {
		out = appendText(out, "…", false)
	}
	return out
}

// appendText adds plain text, joining it to a plain span before it.
func appendText(out []Span, s string, match bool) []Span {
	if s == "" {
		return out
	}
	if n := len(out); n > 0 && !out[n-1].Match && !match {
		out[n-1].Text += s
		return out
	}
	return append(out, Span{Text: s, Match: match})
}

// bestWindow returns the first piece of the window of n pieces with the
// most matches, starting lead pieces before a match; the earliest wins.
func bestWindow(pieces []piece, n int) int {
	best, bestCount := 0, -1
	for i, p := range pieces {
		if !p.match {
			continue
		}
		start := max(0, i-lead)
		count := 0
		for _, q := range pieces[start:min(len(pieces), start+n)] {
			if q.match {
				count++
			}
		}
		if count > bestCount {
			best, bestCount = start, count
		}
	}
	return best
}

// splitMarked removes the \x02 ... \x03 marks of a highlighted text and
// returns the text with its words and matches in order. A match is one
// piece however many words it spans.
func splitMarked(marked string) (string, []piece) {
	var b strings.Builder
	b.Grow(len(marked))
	var pieces []piece
	inWord, matchStart := false, -1
	for _, r := range marked {
		switch {
		case r == 2:
			inWord, matchStart = false, b.Len()
			continue
		case r == 3 && matchStart >= 0:
			pieces = append(pieces, piece{matchStart, b.Len(), true})
			inWord, matchStart = false, -1
			continue
		}
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r)
		if matchStart < 0 {
			switch {
			case word && !inWord:
				pieces = append(pieces, piece{start: b.Len(), end: b.Len() + utf8.RuneLen(r)})
			case word:
				pieces[len(pieces)-1].end = b.Len() + utf8.RuneLen(r)
			}
			inWord = word
		}
		b.WriteRune(r)
	}
	return b.String(), pieces
}

// sortCands orders candidates best first: current-branch ones before the
// others, then by score, the newer first when equal.
func sortCands(cs []cand) {
	slices.SortFunc(cs, func(a, b cand) int {
		if a.on != b.on {
			if a.on {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(b.rowid, a.rowid)
	})
}
