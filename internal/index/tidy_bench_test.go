package index

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// BenchmarkTidy merges what a bulk pass left, step by step (Tidy), and
// reports the steps and their latency: a live append waits for one step
// at most. PIWEB_BENCH_INDEX names an unmerged index (piweb index's) to
// merge a copy of, over PIWEB_BENCH_CORPUS; else the small corpus is
// indexed in a bulk pass.
func BenchmarkTidy(b *testing.B) {
	dir := benchCorpus(b)
	var steps []time.Duration
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		ix := tidyBenchIndex(b, dir)
		c0 := cpuTime()
		b.StartTimer()
		for more := true; more; {
			start := time.Now()
			var err error
			if more, err = ix.Tidy(context.Background()); err != nil {
				b.Fatal(err)
			}
			steps = append(steps, time.Since(start))
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(steps))/float64(b.N), "steps/op")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(steps[0]), "step-first-ms") // puts every segment on one level
	b.ReportMetric(ms(slices.Max(steps)), "step-max-ms")
	b.ReportMetric(float64(slices.Index(steps, slices.Max(steps))), "step-max-at")
	testkit.ReportLatencies(b, "step-", steps)
}

// tidyBenchIndex is an index of dir whose merge is pending.
func tidyBenchIndex(b *testing.B, dir string) *Index {
	src := os.Getenv("PIWEB_BENCH_INDEX")
	if src == "" {
		defer func(n int64) { bulkBytes = n }(bulkBytes)
		bulkBytes = 1
		ix := benchIndex(b, dir)
		if _, err := ix.Sync(context.Background(), true); err != nil {
			b.Fatal(err)
		}
		return ix
	}
	dst := filepath.Join(b.TempDir(), "index.db")
	for _, suffix := range []string{"", ".text"} {
		if err := copyFile(src+suffix, dst+suffix); err != nil {
			b.Fatal(err)
		}
	}
	return openBenchIndex(b, dir, dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
