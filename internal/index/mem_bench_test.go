package index

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// The memory benchmarks of issue 21: what a cold index of damaged files,
// and of a session of one huge line, holds at its worst. They report
// peak-heap-MB (the Go heap's objects above the start, sampled),
// peak-rss-MB (the resident set's high-water mark above the start, with
// SQLite's memory) and heap-per-file-MB (peak heap over the corpus size).
//
//	go test ./internal/index -run XXX -bench Mem -benchtime 1x

// damagedCorpus is the 90 MB of damaged files, generated once.
func damagedCorpus(tb testing.TB, files int, bytes int64, huge int) string {
	return kept(tb, "piweb-bench-damaged-"+strconv.Itoa(files)+"-"+strconv.Itoa(int(bytes>>20))+"-"+strconv.Itoa(huge>>20),
		func(dir string) error {
			_, err := corpus.Damaged(dir, corpus.DamageOptions{Files: files, Bytes: bytes, HugeLine: huge, Seed: 1})
			return err
		})
}

// hugeCorpus is one session whose message line is size bytes.
func hugeCorpus(tb testing.TB, size int, role string) string {
	return kept(tb, "piweb-bench-huge-"+role+"-"+strconv.Itoa(size>>20), func(dir string) error {
		_, err := corpus.Huge(dir, corpus.HugeOptions{Bytes: size, Role: role, Seed: 1})
		return err
	})
}

// kept is corpus.Kept, failing tb when the corpus cannot be written.
func kept(tb testing.TB, name string, write func(dir string) error) string {
	d, err := corpus.Kept(name, write)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// benchMemSync reports the peaks of a cold Sync (listing and text) of dir.
func benchMemSync(b *testing.B, dir string) {
	size := float64(corpusBytes(pisession.SessionFiles(dir))) / (1 << 20)
	var peaks testkit.Peaks
	for b.Loop() {
		ix := benchIndex(b, dir)
		ix.o.Log = slog.New(slog.DiscardHandler)
		p := testkit.StartPeak()
		if _, err := ix.Sync(context.Background(), true); err != nil {
			b.Fatal(err)
		}
		peaks.Note(p.Stop())
		ix.Close()
	}
	b.ReportMetric(size, "corpus-MB")
	peaks.Report(b)
	b.ReportMetric(peaks.Heap/size, "heap-per-file-MB")
}

// BenchmarkMemDamaged indexes 90 MB of damaged sessions (issue 21: 1.54
// GB of RSS at its peak).
// Its files of 1.5 MB have bad lines of up to 4 MB; the 30 MB ones, up to
// 40 MB.
func BenchmarkMemDamaged(b *testing.B) {
	for _, c := range []struct {
		name        string
		files, huge int
	}{{"files-1.5MB", 60, 4 << 20}, {"files-30MB", 3, 40 << 20}} {
		b.Run(c.name, func(b *testing.B) { benchMemSync(b, damagedCorpus(b, c.files, 90<<20, c.huge)) })
	}
}

// BenchmarkMemHugeLine indexes one session with a 52 MB message line.
func BenchmarkMemHugeLine(b *testing.B) {
	for _, role := range []string{"toolResult", "user"} {
		b.Run(role, func(b *testing.B) { benchMemSync(b, hugeCorpus(b, 52<<20, role)) })
	}
}

// BenchmarkMemManyFiles indexes 25,000 sessions of ~16 KB cold (issue
// 22's push corpus; PIWEB_BENCH_SESSIONS sets the count): what grows with
// the number of files (372 MB of RSS before the index file was no longer
// mapped, bench/NOTES.md). The corpus is generated once under $TMPDIR, in
// the same dir as the catalog's BenchmarkMemManyFiles.
func BenchmarkMemManyFiles(b *testing.B) {
	n := testkit.EnvInt("PIWEB_BENCH_SESSIONS", 25000)
	benchMemSync(b, kept(b, "piweb-bench-many-"+strconv.Itoa(n), func(dir string) error {
		_, err := corpus.Generate(dir, corpus.Options{Files: n, Bytes: int64(n) * 16 << 10, Seed: 22})
		return err
	}))
}

// BenchmarkSearchShort times one-letter searches over sessions with huge
// messages (issue 21: 2.7 s of CPU a request), and reports cpu-ms, the CPU
// time of a search.
func BenchmarkSearchShort(b *testing.B) {
	dir := filepath.Join(os.TempDir(), "piweb-bench-search-huge")
	if _, err := os.Stat(dir); err != nil {
		tmp := dir + ".tmp"
		os.RemoveAll(tmp)
		for seed := range uint64(4) {
			if _, err := corpus.Huge(tmp, corpus.HugeOptions{Bytes: 8 << 20, Role: "user", Seed: 10 + seed}); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.Rename(tmp, dir); err != nil {
			b.Fatal(err)
		}
	}
	ix := benchIndex(b, dir)
	ix.o.Log = slog.New(slog.DiscardHandler)
	if _, err := ix.Sync(context.Background(), true); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"a", "a*", "t*", "x", "the"} {
		b.Run("q="+q, func(b *testing.B) {
			c0 := cpuTime()
			for b.Loop() {
				if _, err := ix.Search(context.Background(), Query{Text: q, Limit: 50}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms")
		})
	}
}
