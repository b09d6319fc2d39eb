package jsjson_test

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"piweb/internal/jsjson"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// benchLines returns the lines of the two pi-mono v1 sessions (3.3 MB of
// real pi output).
func benchLines(b *testing.B) [][]byte {
	b.Helper()
	var lines [][]byte
	for _, name := range []string{"pi-mono-v1/before-compaction.jsonl", "pi-mono-v1/large-session.jsonl"} {
		data := testkit.ReadFile(b, filepath.Join(pitest.FixturesDir(b), name))
		lines = append(lines, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))...)
	}
	return lines
}

// longTextLine is a 4 MB session line holding a tool result of source-like
// text: an escaped newline every 40 bytes or so, some tabs and quotes, a
// little non-ASCII. Real pi files have a backslash every 16 bytes on
// average, but in shorter strings.
func longTextLine() []byte {
	r := rand.New(rand.NewPCG(10, 10))
	words := []string{"func", "return", "if", "err", "!=", "nil", "{", "}", "x", ":=", "1", "for", "range",
		"value", "strings.Split(s, \"\\n\")", "é", "—"}
	var text []byte
	for len(text) < 4<<20 {
		if r.IntN(2) == 0 {
			text = append(text, '\t')
		}
		for range 2 + r.IntN(8) {
			text = append(append(text, words[r.IntN(len(words))]...), ' ')
		}
		text = append(text, '\n')
	}
	var o jsjson.Object
	o.Set("type", jsjson.String("message"))
	o.Set("id", jsjson.String("3f2a9c1b"))
	o.Set("message", jsjson.Array(jsjson.String(string(text))))
	return o.AppendJSON(nil)
}

// base64Line is a 4 MB line holding an image: one string without escapes.
func base64Line() []byte {
	img := bytes.Repeat([]byte("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), 4<<20/96)
	return []byte(`{"type":"image","data":"` + string(img) + `","mimeType":"image/png"}`)
}

func mustParse(tb testing.TB, in []byte) jsjson.Value {
	tb.Helper()
	v, err := jsjson.Parse(in)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func benchEachLine(b *testing.B, fn func([]byte)) {
	b.Run("fixtures", func(b *testing.B) {
		lines := benchLines(b)
		var n int64
		for _, l := range lines {
			n += int64(len(l))
		}
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				fn(l)
			}
		}
	})
	for name, line := range map[string][]byte{"longText": longTextLine(), "base64": base64Line()} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				fn(line)
			}
		})
	}
}

func BenchmarkValid(b *testing.B) {
	benchEachLine(b, func(l []byte) {
		if !jsjson.Valid(l) {
			b.Fatal("invalid")
		}
	})
}

func BenchmarkIsCanonical(b *testing.B) {
	benchEachLine(b, func(l []byte) {
		if !jsjson.IsCanonical(l) {
			b.Fatal("not canonical")
		}
	})
}

func BenchmarkParse(b *testing.B) {
	benchEachLine(b, func(l []byte) { mustParse(b, l) })
}

func BenchmarkStringify(b *testing.B) {
	b.Run("fixtures", func(b *testing.B) {
		var vs []jsjson.Value
		var n int64
		for _, l := range benchLines(b) {
			vs = append(vs, mustParse(b, l))
			n += int64(len(l))
		}
		b.SetBytes(n)
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			for _, v := range vs {
				buf = v.AppendJSON(buf[:0])
			}
		}
	})
	line := longTextLine()
	v := mustParse(b, line)
	b.Run("longText", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = v.AppendJSON(buf[:0])
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	for name, s := range map[string]string{
		"ascii":   string(bytes.Repeat([]byte("plain ascii text without escapes "), 2000)),
		"code":    mustParse(b, longTextLine()).Get("message").Index(0).Str()[:64<<10],
		"unicode": string(bytes.Repeat([]byte("héllo wörld — 日本語 😀 "), 2000)),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			buf := make([]byte, 0, 2*len(s))
			for b.Loop() {
				buf = jsjson.AppendString(buf[:0], s)
			}
		})
	}
}
