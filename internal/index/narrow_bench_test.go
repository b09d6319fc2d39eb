package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// BenchmarkNarrowedSearch is issue 26's figure: a filtered search (the
// ranked hits and the count of every match, Answer, as GET /api/search
// answers) over 5,000 sessions, p50 and p99, and the share of answers
// that stopped at the budget (partial). The corpus and its index are built
// once under the temp dir and kept (PIWEB_BENCH_5000 names another dir).
func BenchmarkNarrowedSearch(b *testing.B) {
	ix := narrowIndex(b)
	f := pickFilters(b, ix)
	now := time.Now()
	shapes := []struct {
		name string
		set  func(q *Query)
	}{
		{"none", func(q *Query) {}},
		{"project", func(q *Query) { q.Cwds = []string{f.cwd} }},
		{"dates", func(q *Query) { q.From, q.To = f.from, f.to }},
		{"role-user", func(q *Query) { q.Roles = []string{"user"} }},
		{"role-tool", func(q *Query) { q.Roles = []string{"toolResult", "bashExecution"} }},
		{"model", func(q *Query) { q.Model = f.model }},
		{"abandoned", func(q *Query) { q.Branch = Abandoned }},
		{"current", func(q *Query) { q.Branch = CurrentBranch }},
		{"all", func(q *Query) {
			q.Cwds, q.From, q.To, q.Roles, q.Model, q.Branch = []string{f.cwd}, f.from, f.to, []string{"user"}, f.model, CurrentBranch
		}},
	}
	texts := []string{"function", "the", "zqabc", "error config", "conf*"}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			benchAnswers(b, ix, func(i int) Query {
				q := Query{Text: texts[i%len(texts)], Now: now, Limit: 51}
				s.set(&q)
				return q
			})
		})
	}
}

// narrowIndex is the 5,000-session corpus (about 200 MB, 50 projects)
// and its synced index, both kept between runs; with PIWEB_BENCH_TOOLS
// set, an index that holds tool output too (piweb index --tools), where
// role:tool has hits.
func narrowIndex(b *testing.B) *Index {
	dir := os.Getenv("PIWEB_BENCH_5000")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "piweb-bench-corpus-5000")
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions")); err != nil {
		if _, err := corpus.Generate(dir, corpus.Options{Files: 5000, Bytes: 200 << 20, Projects: 50, Seed: 5}); err != nil {
			b.Fatal(err)
		}
	}
	if os.Getenv("PIWEB_BENCH_TOOLS") == "" {
		return keptIndex(b, dir)
	}
	ix := openWith(b, Options{AgentDir: dir, Path: filepath.Join(dir, "index-tools.db"), Tools: true,
		Getenv: func(string) string { return "" }, Log: testkit.Log(b)})
	if _, err := ix.Sync(context.Background(), true); err != nil {
		b.Fatal(err)
	}
	return ix
}

// BenchmarkSearchBudget shows a search's bound (issue 21): searches that
// read every match of a common word, because a filter passes none of
// them, over 5,000 sessions, with the default budget and without one
// (budget=off). It reports the CPU time of a request (hits and count, as
// GET /api/search answers), its latency and the share of answers that were
// partial.
func BenchmarkSearchBudget(b *testing.B) {
	benchBudgets(b, narrowIndex(b), []string{"a", "the", "function"}, func(text string) Query {
		// A role no entry has: the filter is checked on every match (tool
		// output alone, on an index without it, now answers at once).
		return Query{Text: text, Limit: 51, Roles: []string{"no-such-role"}}
	})
}

// benchBudgets runs the query of each text with the default budget and
// without one (budget=off), each reported by benchAnswers.
func benchBudgets(b *testing.B, ix *Index, texts []string, query func(text string) Query) {
	defer func(d time.Duration) { ix.o.SearchBudget = d }(ix.o.SearchBudget)
	for _, budget := range []time.Duration{defaultBudget, time.Hour} {
		name := "budget=" + budget.String()
		if budget == time.Hour {
			name = "budget=off"
		}
		ix.o.SearchBudget = budget
		for _, text := range texts {
			b.Run(name+"/q="+text, func(b *testing.B) {
				benchAnswers(b, ix, func(int) Query { return query(text) })
			})
		}
	}
}

// benchAnswers answers the i-th query of the loop, reporting a request's
// CPU time, its p50, p99 and slowest, and the share of answers that
// stopped at the budget (partial).
func benchAnswers(b *testing.B, ix *Index, query func(i int) Query) {
	var lat []time.Duration
	partial, c0 := 0, cpuTime()
	for i := 0; b.Loop(); i++ {
		q := query(i)
		t := time.Now()
		a, err := ix.Answer(context.Background(), q)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		if a.Partial {
			partial++
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(cpuTime()-c0)/float64(len(lat)), "cpu-ms")
	testkit.ReportLatencies(b, "", lat)
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(float64(partial)/float64(len(lat)), "partial")
}
