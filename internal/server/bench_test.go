package server

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/corpus"
	"piweb/internal/index"
)

// The load benchmarks of GET /api/sessions over 5,000 indexed sessions,
// alone and while a 150 MB session is being indexed. They report latency
// percentiles, throughput, the requests over 100 ms and the Go scheduler's
// waits as custom metrics:
//
//	go test -run '^$' -bench 'ListSessions$' -benchtime 2000x ./internal/server
//	go test -run '^$' -bench ListSessionsWhileIndexing -benchtime 1x ./internal/server
//
// The corpus is generated once under $TMPDIR/piweb-bench-5000 and reused.

var benchDir = filepath.Join(os.TempDir(), "piweb-bench-5000")

func benchCorpus(b *testing.B) string {
	b.Helper()
	agentDir := filepath.Join(benchDir, "agent")
	if _, err := os.Stat(filepath.Join(benchDir, "done")); err != nil {
		os.RemoveAll(benchDir)
		if _, err := corpus.Generate(agentDir, corpus.Options{Files: 5000, Bytes: 60 << 20, Projects: 40, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		big := filepath.Join(benchDir, "big")
		if _, err := corpus.Generate(big, corpus.Options{Files: 1, Bytes: 150 << 20, BigFiles: 1, BigBytes: 150 << 20, Seed: 2}); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(benchDir, "done"), nil, 0o644)
	}
	return agentDir
}

// bigFile is the 150 MB session, outside the agent dir until moved in.
func bigFile(b *testing.B) string {
	var found string
	filepath.WalkDir(filepath.Join(benchDir, "big"), func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Ext(p) == ".jsonl" {
			found = p
		}
		return nil
	})
	if found == "" {
		b.Fatal("no big session")
	}
	return found
}

// newBenchRig serves agentDir over an index kept in benchDir.
func newBenchRig(b *testing.B, agentDir string) *indexServer {
	watch := catalog.WatchIndex
	if os.Getenv("PIWEB_BENCH_NICE") == "0" { // for comparisons
		watch = watchOnly
	}
	return newIndexServer(b, index.Options{AgentDir: agentDir, Path: filepath.Join(benchDir, "index.db"),
		Log: slog.New(slog.DiscardHandler)}, watch)
}

// loaders are the two ways of loading the server: a child process (as a
// browser is) and goroutines of the benchmark's own process.
var loaders = []struct {
	name string
	load func(b *testing.B, url string, clients, n int, stop <-chan struct{}) []time.Duration
}{{"proc", loadProc}, {"inproc", loadInProc}}

func BenchmarkListSessions(b *testing.B) {
	agentDir := benchCorpus(b)
	r := newBenchRig(b, agentDir)
	defer r.cleanup()
	for _, q := range []string{"", "#gzip", "?limit=100"} {
		for _, l := range loaders {
			b.Run("query="+q+"/client="+l.name, func(b *testing.B) {
				url := r.ts.URL + "/api/sessions" + q
				l.load(b, url, 4, 20, nil) // warm up
				b.ResetTimer()
				sw := newSchedWatch()
				start := time.Now()
				lat := l.load(b, url, 4, b.N, nil)
				report(b, lat, time.Since(start))
				sw.report(b)
			})
		}
	}
}

// BenchmarkListSessionsWhileIndexing moves a 150 MB session into the agent
// dir and loads the listing until the index has taken it in (its text
// too), then moves it out again.
func BenchmarkListSessionsWhileIndexing(b *testing.B) {
	agentDir := benchCorpus(b)
	big := bigFile(b)
	for _, q := range []string{"", "#gzip", "?limit=100"} {
		for _, l := range loaders {
			b.Run("query="+q+"/client="+l.name, func(b *testing.B) {
				if b.N > 1 {
					b.Skip("one indexing run per measurement; use -benchtime 1x")
				}
				r := newBenchRig(b, agentDir)
				defer r.cleanup()
				dst := filepath.Join(agentDir, "sessions", "--bench-big--", filepath.Base(big))
				os.MkdirAll(filepath.Dir(dst), 0o755)
				defer func() { os.Rename(dst, big); r.ix.Update(context.Background(), dst) }()
				stop := indexed(r.ix, dst)
				b.ResetTimer()
				sw := newSchedWatch()
				start := time.Now()
				if err := os.Rename(big, dst); err != nil {
					b.Fatal(err)
				}
				lat := l.load(b, r.ts.URL+"/api/sessions"+q, 4, 0, stop)
				elapsed := time.Since(start)
				b.Logf("150 MB session indexed in %v; %d requests meanwhile", elapsed, len(lat))
				report(b, lat, elapsed)
				sw.report(b)
			})
		}
	}
}

// indexed returns a channel closed once the index has the file at path
// with its text.
func indexed(ix *index.Index, path string) <-chan struct{} {
	sub := ix.Subscribe()
	events, cancel := sub.C, sub.Close
	stop := make(chan struct{})
	go func() {
		defer cancel()
		for ev := range events {
			if ev.Path == path && !indexingBehind(ix, path) {
				close(stop)
				return
			}
		}
	}()
	return stop
}

// indexingBehind reports whether the file's text is still being indexed.
func indexingBehind(ix *index.Index, path string) bool {
	ms, err := ix.Sessions(context.Background())
	if err != nil {
		return true
	}
	for _, m := range ms {
		if m.Info.Path == path {
			return m.TextBehind
		}
	}
	return true
}
