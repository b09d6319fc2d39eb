package server

import (
	"testing"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// BenchmarkMemHugeSession measures what the session page's reads hold of
// a session whose one message line is 52 MB (issue 21: viewing one added
// 820 MB to serve): each route read cold (the parse cache emptied), its
// answer read and dropped. It reports peak-heap-MB (the Go heap's objects
// above the start, sampled), peak-rss-MB and heap-per-file-MB.
//
//	go test -run '^$' -bench MemHugeSession -benchtime 1x ./internal/server
func BenchmarkMemHugeSession(b *testing.B) {
	for _, role := range []string{"toolResult", "user"} {
		b.Run("role="+role, func(b *testing.B) { benchMemHuge(b, role) })
	}
}

func benchMemHuge(b *testing.B, role string) {
	h := newHugeSession(b, corpus.HugeOptions{Bytes: 52 << 20, Role: role, Seed: 1})
	for _, route := range []string{"", "/context?limit=50", "/entries?limit=50", "/export?format=md",
		"/export?format=html", "/export?format=jsonl&scope=branch"} {
		b.Run("route="+route, func(b *testing.B) {
			var peaks testkit.Peaks
			for b.Loop() {
				hp, rs, _, err := h.read(route)
				if err != nil {
					b.Fatalf("%s: %v", route, err)
				}
				peaks.Note(hp, rs)
			}
			peaks.Report(b)
			b.ReportMetric(peaks.Heap/h.mb, "heap-per-file-MB")
		})
	}
}
