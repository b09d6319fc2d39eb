package index

import (
	"context"
	"os"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// searchShapes are the kinds of query issue 3 asks to be fast, each with a
// few queries that are run in turn. Common words are in most entries of
// the generated corpus, rare ones (zq...) in a few sessions.
var searchShapes = []struct {
	name    string
	queries []string
	filter  func(q *Query, f benchFilters)
}{
	{name: "rare", queries: []string{"zqabc", "zqkmx", "zqrst"}},
	{name: "common", queries: []string{"function", "error", "config", "the"}},
	{name: "two-common", queries: []string{"error config", "function test", "the value"}},
	{name: "common-rare", queries: []string{"function zqabc", "the zqkmx", "error zqrst"}},
	{name: "phrase", queries: []string{`"the function"`, `"the file"`, `"to the"`}},
	{name: "prefix", queries: []string{"func*", "mig*", "conf*"}},
	{name: "prefix-1", queries: []string{"a*", "t*", "f*"}},
	{name: "prefix-2", queries: []string{"th*", "er*", "co*"}},
	{name: "phrase-prefix", queries: []string{`"the func"*`, `"to th"*`}},
	{name: "cwd", queries: []string{"function", "the", "zqabc"}, filter: func(q *Query, f benchFilters) { q.Cwd = f.cwd }},
	{name: "model", queries: []string{"function", "the", "zqabc"}, filter: func(q *Query, f benchFilters) { q.Model = f.model }},
	{name: "dates", queries: []string{"function", "the", "zqabc"}, filter: func(q *Query, f benchFilters) { q.From, q.To = f.from, f.to }},
	{name: "all-filters", queries: []string{"function", "the", "th*"}, filter: func(q *Query, f benchFilters) {
		q.Cwd, q.Model, q.From, q.To = f.cwd, f.model, f.from, f.to
	}},
}

// benchFilters are filters that keep a small part of the corpus: one
// project, one model, a week among the corpus's entry times.
type benchFilters struct {
	cwd, model string
	from, to   time.Time
}

func pickFilters(b *testing.B, ix *Index) benchFilters {
	var f benchFilters
	var lo, hi int64
	err := ix.db.QueryRow(`SELECT (SELECT cwd FROM files WHERE cwd != '' ORDER BY id LIMIT 1),
		(SELECT model FROM file_models ORDER BY model LIMIT 1), (SELECT min(ts) FROM entries WHERE ts > 0),
		(SELECT max(ts) FROM entries)`).Scan(&f.cwd, &f.model, &lo, &hi)
	if err != nil {
		b.Fatal(err)
	}
	mid := time.UnixMilli(lo + (hi-lo)/2)
	f.from, f.to = mid, mid.Add(7*24*time.Hour)
	return f
}

// BenchmarkSearch reports p50 and p99 latency of each query shape on a
// fully indexed corpus (PIWEB_BENCH_INDEX reuses a built index).
func BenchmarkSearch(b *testing.B) {
	dir := benchCorpus(b)
	ix := benchIndex(b, dir)
	if p := os.Getenv("PIWEB_BENCH_INDEX"); p != "" {
		ix.Close()
		var err error
		if ix, err = Open(context.Background(), Options{AgentDir: dir, Path: p, Getenv: func(string) string { return "" }}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := ix.Sync(context.Background(), true); err != nil {
		b.Fatal(err)
	}
	f := pickFilters(b, ix)
	now := time.Now()
	for _, s := range searchShapes {
		b.Run(s.name, func(b *testing.B) {
			var lat []time.Duration
			hits := 0
			for i := 0; b.Loop(); i++ {
				q := Query{Text: s.queries[i%len(s.queries)], Now: now}
				if s.filter != nil {
					s.filter(&q, f)
				}
				t := time.Now()
				h, err := ix.Search(context.Background(), q)
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
				hits += len(h)
			}
			testkit.ReportLatencies(b, "", lat)
			b.ReportMetric(float64(hits)/float64(len(lat)), "hits/op")
		})
	}
}
