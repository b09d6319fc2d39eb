package index

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// BenchmarkSearchPrefixMerge shows that the budget bounds a prefix that
// stands for more than maxExpand words (decision 0036): FTS5 merges the
// lists of all its words before the first row, inside one step of
// SQLite, and SQLite's interrupt stops that merge too. The index (kept
// under the temp dir) holds 1.5M entries of 30 words each from a
// vocabulary of 20,000, so that "a*" stands for about 770 words and
// matches most entries; "ab*" and "abc*" stand for fewer. It reports the
// CPU time of a request (hits and count, as GET /api/search answers), the
// slowest, and the share of partial answers, with the default budget and
// without one (budget=off).
//
//	go test ./internal/index -run '^$' -bench SearchPrefixMerge -benchtime 10x
func BenchmarkSearchPrefixMerge(b *testing.B) {
	benchBudgets(b, wideVocabIndex(b), []string{"a*", "ab*", "abc*"}, func(text string) Query {
		return Query{Text: text, Limit: 51}
	})
}

// wideVocabIndex is BenchmarkSearchPrefixMerge's corpus and its synced
// index, both kept between runs.
func wideVocabIndex(b *testing.B) *Index {
	return keptIndex(b, kept(b, "piweb-bench-wide-vocab", func(dir string) error {
		writeWideVocab(b, dir, 3000, 500)
		return nil
	}))
}

// writeWideVocab writes files sessions of entries messages of 30 words,
// picked skewed (common words first) from 20,000 words spread over the
// 26 first letters.
func writeWideVocab(b *testing.B, dir string, files, entries int) {
	os.RemoveAll(dir)
	r := rand.New(rand.NewPCG(21, 36))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = string(rune('a'+i%26)) + itoa26(i)
	}
	for f := range files {
		texts := make([]string, entries)
		for i := range texts {
			w := make([]string, 30)
			for j := range w {
				w[j] = vocab[int(float64(len(vocab))*r.Float64()*r.Float64())]
			}
			texts[i] = strings.Join(w, " ")
		}
		writeWords(b, dir, "s"+itoa26(f), texts...)
	}
}
