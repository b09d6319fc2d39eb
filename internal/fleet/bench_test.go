package fleet

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/catalog/catalogtest"
	"piweb/internal/corpus"
	"piweb/internal/pgtest"
	"piweb/internal/testkit"
)

// BenchmarkInitialPush pushes a generated machine's sessions into an
// empty fleet database: issue 22 asks for 25,000 sessions in at most
// 30 s. FLEET_BENCH_SESSIONS sets the count (default 2,500; ~16 KB and
// ~25 entries each), FLEET_BENCH_MAXBYTES a batch's bytes and
// FLEET_BENCH_CONNS the batches at once, FLEET_BENCH_FLUSHKB the rows
// sent in one statement (defaults the pusher's); the
// local index is built before the timer starts. It reports the CPU the
// server's processes and this one used over the push
// (FLEET_BENCH_CPUPROFILE: this process's CPU profile of it).
func BenchmarkInitialPush(b *testing.B) {
	n := testkit.EnvInt("FLEET_BENCH_SESSIONS", 2500)
	ctx := context.Background()
	cat, st := indexedCorpus(b, n, 16<<10)
	listed, _, _ := cat.List(ctx, catalog.ListQuery{})
	c := pgtest.Shared(b)
	// The peak RSS is the push's: what generating and indexing the corpus
	// took is returned and the peak reset first (the index stays, as in
	// serve).
	runtime.GC()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	before := peakRSS()
	b.ResetTimer()
	var total, server, client time.Duration
	for i := range b.N {
		b.StopTimer()
		d := newFleetDB(b, c)
		url := d.role(b, fmt.Sprintf("bench%d", i))
		b.StartTimer()
		start, pg, self := time.Now(), c.CPU(), selfCPU()
		stop := profilePush(b)
		pushAll(b, url, "bench", cat, len(listed))
		stop()
		total += time.Since(start)
		server, client = server+c.CPU()-pg, client+selfCPU()-self
	}
	secs := total.Seconds() / float64(b.N)
	b.ReportMetric(server.Seconds()/float64(b.N), "server-CPU-s")
	b.ReportMetric(client.Seconds()/float64(b.N), "client-CPU-s")
	b.ReportMetric(float64(len(listed))/secs, "sessions/s")
	b.ReportMetric(float64(st.Entries)/secs, "entries/s")
	b.ReportMetric(float64(st.Bytes)/secs/(1<<20), "MB/s")
	hwm := peakRSS()
	b.ReportMetric(float64(hwm>>20), "peak-RSS-MB")
	b.Logf("%d sessions, %d entries, %d MB: %.1f s per initial push; peak RSS while pushing %d MB (the index and the pusher, as serve holds them; %d MB before pushing)",
		len(listed), st.Entries, st.Bytes>>20, secs, hwm>>20, before>>20)
}

// profilePush starts a CPU profile of the push alone when
// FLEET_BENCH_CPUPROFILE names its file (go test's -cpuprofile covers
// generating and indexing the corpus too); the returned func stops it.
func profilePush(b *testing.B) func() {
	name := os.Getenv("FLEET_BENCH_CPUPROFILE")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// selfCPU is this process's CPU time so far (user and system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's peak resident set (VmHWM), 0 where unknown.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// indexedCorpus generates n sessions of about per bytes each and indexes
// them as serve does, until the benchmark ends.
func indexedCorpus(b *testing.B, n int, per int64) (*catalog.Catalog, corpus.Stats) {
	b.Helper()
	dir := b.TempDir()
	st, err := corpus.Generate(dir, corpus.Options{Files: n, Bytes: int64(n) * per, Seed: 22})
	if err != nil {
		b.Fatal(err)
	}
	cat := catalogtest.Open(b, catalog.Options{AgentDir: dir})
	catalogtest.AwaitText(b, cat)
	return cat, st
}

// pushAll pushes cat's sessions as machine into url until the pusher has
// pushed want of them and is current, then stops it.
func pushAll(b *testing.B, url, machine string, cat *catalog.Catalog, want int) {
	b.Helper()
	p := New(Options{URL: url, Machine: machine, Source: cat, MaxBytes: int64(testkit.EnvInt("FLEET_BENCH_MAXBYTES", 0)),
		Conns: testkit.EnvInt("FLEET_BENCH_CONNS", 0), flushBytes: testkit.EnvInt("FLEET_BENCH_FLUSHKB", 0) << 10})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	testkit.Eventually(b, func() error {
		if s := p.Status(); s.State != StateCurrent || s.Pushed.Sessions < want {
			return fmt.Errorf("%+v", s)
		}
		return nil
	}, 30*time.Minute, "the push")
}
