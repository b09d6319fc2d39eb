package fleet

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"piweb/internal/pgtest"
)

// TestLexemesMatchServer: for every text tsvectorOf takes, the server's
// to_tsvector('simple', text) is the same tsvector (lexemes, positions,
// their limits), and the server reads our binary form; the texts it
// leaves to the server are those the default parser reads otherwise.
func TestLexemesMatchServer(t *testing.T) {
	conn := connectAs(t, pgtest.Shared(t).URL("postgres", pgtest.Superuser, ""))
	texts := []string{"", "  ", "Hello, World! hello", "The end.", "a - b", "x ~", "1 22 333", "x1y2 Z9", "read-only Read-Only",
		"a-b-c d1-e2 -- x- y", "a@b-c x_y-z _a-b a-b_c a-b@c it's-a a-b'c (a-b) [x-y]: a-b, q-r; s-t! u-v?",
		"it's a \"quote\" (and) [more] {braces} @at #hash $d %p ^c *s _u `b` |p \\ = ? : ; > ,",
		strings.Repeat("the ", 300) + "end", strings.Repeat("w ", maxPos+50) + "last w",
		strings.Repeat("x", maxLexeme-1) + " y", strings.Repeat("x", maxLexeme-3) + "-yz y"}
	r := rand.New(rand.NewPCG(22, 46))
	const alphabet = "abcdefghijKLMNOPe0123459abcdefghij                \n\t\r----" + plainPunct + beforeBlank
	for range 6000 {
		b := make([]byte, r.IntN(160))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	var lexed []string
	var tsvs [][]byte
	for _, text := range texts {
		if v, ok := tsvectorOf(text); ok {
			lexed, tsvs = append(lexed, text), append(tsvs, v)
		}
	}
	if len(lexed) < len(texts)/20 {
		t.Fatalf("only %d of %d texts are plain", len(lexed), len(texts))
	}
	vals, oids, formats := params(param{oidTsvectorArray, bytesArray(oidTsvector, tsvs)}, param{oidTextArray, textArray(lexed)})
	res := conn.PgConn().ExecParams(context.Background(), `SELECT u.t, u.v::text, to_tsvector('simple', u.t)::text
		FROM unnest($1::tsvector[], $2::text[]) AS u(v, t) WHERE u.v::text IS DISTINCT FROM to_tsvector('simple', u.t)::text`,
		vals, oids, formats, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	for i, row := range res.Rows {
		if i < 5 {
			t.Errorf("%.100q: ours %.200s, the server's %.200s", row[0], row[1], row[2])
		}
	}
	if len(res.Rows) > 0 {
		t.Errorf("%d of %d plain texts differ", len(res.Rows), len(lexed))
	}
	for _, text := range []string{"ab-12", "1-2", "a--b-", "x.y", "e.g. that", "/usr/bin", "~/x", "1.5", "-5", "+1", "1e5", "3rd",
		"&amp;", "<b>x</b>", "http://h/p", "café", "a\x00b", strings.Repeat("x", maxLexeme) + " y", strings.Repeat("x", maxLexeme-2) + "-yz y"} {
		if _, ok := tsvectorOf(text); ok {
			t.Errorf("%q is taken as plain; the parser reads it otherwise", text)
		}
	}
}

// BenchmarkTsvectorOf: the pusher's cost of an entry's tsvector (a
// 300-character answer of plain words, as the benchmark corpus writes).
func BenchmarkTsvectorOf(b *testing.B) {
	text := strings.Repeat("the deadline transaction the docker to of the channel, to extract the buffer. ", 4)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, ok := tsvectorOf(text); !ok {
			b.Fatal("not plain")
		}
	}
}
