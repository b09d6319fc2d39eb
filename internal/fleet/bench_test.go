package fleet

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/corpus"
	"piweb/internal/pgtest"
	"piweb/internal/testkit"
)

// BenchmarkInitialPush pushes a generated machine's sessions into an
// empty fleet database: issue 22 asks for 25,000 sessions in at most
// 30 s. FLEET_BENCH_SESSIONS sets the count (default 2,500; ~16 KB and
// ~25 entries each); the local index is built before the timer starts.
func BenchmarkInitialPush(b *testing.B) {
	n := 2500
	if v, err := strconv.Atoi(os.Getenv("FLEET_BENCH_SESSIONS")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	st, err := corpus.Generate(dir, corpus.Options{Files: n, Bytes: int64(n) * 16 << 10, Seed: 22})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cat, err := catalog.Open(ctx, catalog.Options{AgentDir: dir, Temporary: true})
	if err != nil {
		b.Fatal(err)
	}
	defer cat.Close()
	if err := cat.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	listed, _, _ := cat.List(ctx, catalog.ListQuery{})
	c := pgtest.Shared(b)
	b.ResetTimer()
	var total time.Duration
	for i := range b.N {
		b.StopTimer()
		d := newFleetDB(b, c)
		url := d.role(b, fmt.Sprintf("bench%d", i))
		b.StartTimer()
		start := time.Now()
		p := New(Options{URL: url, Machine: "bench", Source: cat})
		pctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { p.Run(pctx); close(done) }()
		testkit.Eventually(b, func() error {
			if s := p.Status(); s.State != StateCurrent || s.Pushed.Sessions < len(listed) {
				return fmt.Errorf("%+v", s)
			}
			return nil
		}, 10*time.Minute, "the initial push")
		total += time.Since(start)
		cancel()
		<-done
	}
	secs := total.Seconds() / float64(b.N)
	b.ReportMetric(float64(len(listed))/secs, "sessions/s")
	b.ReportMetric(float64(st.Entries)/secs, "entries/s")
	b.ReportMetric(float64(st.Bytes)/secs/(1<<20), "MB/s")
	hwm := peakRSS()
	b.ReportMetric(float64(hwm>>20), "peak-RSS-MB")
	b.Logf("%d sessions, %d entries, %d MB: %.1f s per initial push; peak RSS %d MB (the index and the pusher, as serve holds them)",
		len(listed), st.Entries, st.Bytes>>20, secs, hwm>>20)
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
