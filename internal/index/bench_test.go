package index

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"piweb/internal/corpus"
	"piweb/internal/session"
)

// The benchmarks run on the corpus named by PIWEB_BENCH_CORPUS (an agent
// dir written by gencorpus; bench/index.sh makes the 5,000 file / 2 GB one)
// or, without it, on a small generated one.

func benchCorpus(b *testing.B) string {
	if d := os.Getenv("PIWEB_BENCH_CORPUS"); d != "" {
		return d
	}
	d := filepath.Join(os.TempDir(), "piweb-bench-corpus-small")
	if _, err := os.Stat(d); err != nil {
		if _, err := corpus.Generate(d, corpus.Options{Files: 200, Bytes: 40 << 20, BigFiles: 1, BigBytes: 8 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	return d
}

func corpusBytes(files []string) int64 {
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func benchIndex(b *testing.B, dir string) *Index {
	ix, err := Open(context.Background(), Options{AgentDir: dir, Path: filepath.Join(b.TempDir(), "index.db"),
		Getenv: func(string) string { return "" }, Logf: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}

// BenchmarkColdListing is the first pass of a cold start: every file read
// and parsed, the listing (pi's SessionInfo and the metadata) written.
func BenchmarkColdListing(b *testing.B) {
	dir := benchCorpus(b)
	b.SetBytes(corpusBytes(session.SessionFiles(dir)))
	b.ReportAllocs()
	for b.Loop() {
		ix := benchIndex(b, dir)
		if _, err := ix.Sync(context.Background(), false); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}

// BenchmarkColdText is the whole cold start, listing and text; the text
// time alone is reported as text-s.
func BenchmarkColdText(b *testing.B) {
	dir := benchCorpus(b)
	b.SetBytes(corpusBytes(session.SessionFiles(dir)))
	b.ReportAllocs()
	for b.Loop() {
		ix := benchIndex(b, dir)
		st, err := ix.Sync(context.Background(), true)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(st.Listing.Seconds(), "listing-s")
		b.ReportMetric(st.Text.Seconds(), "text-s")
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
		ix.Close()
	}
}

// BenchmarkDirectScan is session.ListAll, the direct scan ls --scan does.
func BenchmarkDirectScan(b *testing.B) {
	dir := benchCorpus(b)
	b.SetBytes(corpusBytes(session.SessionFiles(dir)))
	for b.Loop() {
		session.ListAll(dir)
	}
}

// BenchmarkWarmList is ls with nothing changed: a stat per file and the
// listing read from the index.
func BenchmarkWarmList(b *testing.B) {
	dir := benchCorpus(b)
	ix := benchIndex(b, dir)
	if _, err := ix.Sync(context.Background(), false); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.List(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch reports p50 and p99 latency of selective and common
// queries on a fully indexed corpus.
func BenchmarkSearch(b *testing.B) {
	dir := benchCorpus(b)
	ix := benchIndex(b, dir)
	if p := os.Getenv("PIWEB_BENCH_INDEX"); p != "" { // reuse a built index
		ix.Close()
		var err error
		if ix, err = Open(context.Background(), Options{AgentDir: dir, Path: p, Getenv: func(string) string { return "" }}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := ix.Sync(context.Background(), true); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, text string }{
		{"selective", "zqabc"}, {"selective-prefix", "zqab*"}, {"common", "function"},
		{"common-phrase", `"the function"`}, {"common-and", "error config"}, {"prefix", "mig*"},
	} {
		b.Run(q.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t := time.Now()
				if _, err := ix.Search(context.Background(), Query{Text: q.text}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
