package index

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
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
	return openBenchIndex(b, dir, filepath.Join(b.TempDir(), "index.db"))
}

// keptIndex opens the index kept in a benchmark corpus's folder dir
// (built on the first run, reused after) and syncs it.
func keptIndex(b *testing.B, dir string) *Index {
	ix := openBenchIndex(b, dir, filepath.Join(dir, "index.db"))
	if _, err := ix.Sync(context.Background(), true); err != nil {
		b.Fatal(err)
	}
	return ix
}

// openBenchIndex opens the index at path over dir, closed when b ends.
func openBenchIndex(b *testing.B, dir, path string) *Index {
	return openWith(b, Options{AgentDir: dir, Path: path, Getenv: func(string) string { return "" }, Log: testkit.Log(b)})
}

// BenchmarkColdListing is the first pass of a cold start: every file read
// and parsed, the listing (pi's SessionInfo and the metadata) written.
//
// cpu-MB/s is the same per second of CPU time (user and system, every
// core): on a shared machine it moves less with the load than MB/s does.
func BenchmarkColdListing(b *testing.B) {
	benchCorpusCPU(b, func(dir string) (run, done func()) {
		ix := benchIndex(b, dir)
		return func() {
			if _, err := ix.Sync(context.Background(), false); err != nil {
				b.Fatal(err)
			}
		}, func() { ix.Close() }
	})
}

// benchCorpusCPU times run over the bench corpus b.N times, each after a
// fresh prepare (and before its done) outside the timer, and reports
// cpu-MB/s beside MB/s.
func benchCorpusCPU(b *testing.B, prepare func(dir string) (run, done func())) {
	dir := benchCorpus(b)
	size := corpusBytes(pisession.SessionFiles(dir))
	b.SetBytes(size)
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		run, done := prepare(dir)
		c0 := cpuTime()
		b.StartTimer()
		run()
		b.StopTimer()
		cpu += cpuTime() - c0
		done()
		b.StartTimer()
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
}

// cpuTime is the user and system time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkColdText is the whole cold start, listing then text, as two
// Syncs; it reports the time of each (listing-s, text-s) and the peak
// resident memory of each (listing-peak-MB, text-peak-MB, Linux only: the
// peak is reset between them).
func BenchmarkColdText(b *testing.B) {
	dir := benchCorpus(b)
	b.SetBytes(corpusBytes(pisession.SessionFiles(dir)))
	b.ReportAllocs()
	for b.Loop() {
		ix := benchIndex(b, dir)
		resetPeakRSS()
		st, err := ix.Sync(context.Background(), false)
		if err != nil {
			b.Fatal(err)
		}
		listingPeak := peakRSS()
		resetPeakRSS()
		t := time.Now()
		if _, err := ix.Sync(context.Background(), true); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(st.Listing.Seconds(), "listing-s")
		b.ReportMetric(time.Since(t).Seconds(), "text-s")
		b.ReportMetric(listingPeak, "listing-peak-MB")
		b.ReportMetric(peakRSS(), "text-peak-MB")
		ix.Close()
	}
}

// BenchmarkColdIndex is a cold Sync with text, as piweb index runs it:
// each new file's listing and text from one read (oneRead). It reports
// cpu-MB/s, the peak resident memory (peak-MB, Linux only) and the bytes
// read over the corpus's size (read-x).
func BenchmarkColdIndex(b *testing.B) {
	size := float64(corpusBytes(pisession.SessionFiles(benchCorpus(b))))
	var peak, read float64
	benchCorpusCPU(b, func(dir string) (run, done func()) {
		ix := benchIndex(b, dir)
		return func() {
				resetPeakRSS()
				if _, err := ix.Sync(context.Background(), true); err != nil {
					b.Fatal(err)
				}
				peak, read = max(peak, peakRSS()), float64(ix.BytesRead())
			}, func() {
				ix.Close()
			}
	})
	b.ReportMetric(peak, "peak-MB")
	b.ReportMetric(read/size, "read-x")
}

// resetPeakRSS resets the process's peak resident set (Linux).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns the process's peak resident set in MB since the last
// reset, 0 where /proc does not tell.
func peakRSS() float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if kb, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 64)
			return n / 1024
		}
	}
	return 0
}

// BenchmarkDirectScan is pisession.ListAll, the direct scan ls --scan does.
func BenchmarkDirectScan(b *testing.B) {
	dir := benchCorpus(b)
	b.SetBytes(corpusBytes(pisession.SessionFiles(dir)))
	for b.Loop() {
		pisession.ListAll(dir)
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

// BenchmarkLiveAppend appends one entry to the biggest session of the
// corpus while Watch runs, and reports the time until a subscriber hears of
// it and the bytes the index read for it.
func BenchmarkLiveAppend(b *testing.B) {
	src := benchCorpus(b)
	files := pisession.SessionFiles(src)
	sort.Slice(files, func(i, j int) bool { return fileSize(files[i]) > fileSize(files[j]) })
	// Work on a copy so the corpus stays as generated.
	dir := b.TempDir()
	proj := filepath.Join(dir, "sessions", "--p--")
	os.MkdirAll(proj, 0o755)
	path := filepath.Join(proj, "big.jsonl")
	data := testkit.ReadFile(b, files[0])
	os.WriteFile(path, data, 0o644)
	s := pisession.Parse(data)
	leaf := s.Leaf().ID
	data = nil
	ix := benchIndex(b, dir)
	ch := watching(b, ix)
	for ev := range ch { // the initial sync
		if ev.Path == path {
			break
		}
	}
	// Wait for the text pass of that sync: Sync takes the writer lock.
	if _, err := ix.Sync(context.Background(), true); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	var read int64
	entry := ""
	for i := 0; b.Loop(); i++ {
		id := "bench" + strconv.Itoa(i)
		entry = line(id, leaf, "user", "benchmark question number "+strconv.Itoa(i), 1)
		leaf = id
		before := ix.BytesRead()
		t := time.Now()
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(entry)
		f.Close()
		for ev := range ch {
			if ev.Path == path && len(ev.Appended) > 0 && ev.Appended[len(ev.Appended)-1] == id {
				break
			}
		}
		lat = append(lat, time.Since(t))
		read += ix.BytesRead() - before
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(read)/float64(len(lat)), "bytes-read/op")
	b.ReportMetric(float64(len(entry)), "entry-bytes")
	b.ReportMetric(float64(fileSize(path))/(1<<20), "file-MB")
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// BenchmarkMillionEntries indexes (listing and text) one session of a
// million small entries.
func BenchmarkMillionEntries(b *testing.B) {
	dir := b.TempDir()
	p := writeMany(b, dir, 1_000_000)
	b.SetBytes(fileSize(p))
	for b.Loop() {
		b.StopTimer()
		ix := benchIndex(b, dir)
		b.StartTimer()
		st, err := ix.Sync(context.Background(), true)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(st.Listing.Seconds(), "listing-s")
		b.ReportMetric(st.Text.Seconds(), "text-s")
		b.StopTimer()
		ix.Close()
		b.StartTimer()
	}
}

// BenchmarkWarmLs is piweb ls --json with nothing changed, as the command
// runs it: the quick answer from the listing snapshot (a folder read per
// project, a stat per file). The open-index sub-benchmark is the path the
// command takes when something changed, here with nothing to update: open
// the index, scan, compare with the snapshot, write it again.
func BenchmarkWarmLs(b *testing.B) {
	dir := benchCorpus(b)
	path := filepath.Join(b.TempDir(), "index.db")
	o := Options{AgentDir: dir, Path: path, Getenv: func(string) string { return "" }, Log: testkit.Log(b)}
	openList(b, o)
	b.Run("quick", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := WriteQuickListJSON(o, io.Discard); !ok || err != nil {
				b.Fatal("no quick answer", err)
			}
		}
	})
	b.Run("open-index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			openList(b, o)
		}
	})
}

// openList is `piweb ls --json` on the open index: open it, list, close.
func openList(b *testing.B, o Options) {
	ix, err := Open(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ix.ListJSON(context.Background()); err != nil {
		b.Fatal(err)
	}
	ix.Close()
}
