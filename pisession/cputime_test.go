package pisession

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's user plus system CPU time. Benchmarks
// report throughput per CPU second as well as per wall second, because the
// shared 2-core machines they run on make wall time noisy.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-MB/s metric for n bytes per iteration since start.
func reportCPU(b *testing.B, start time.Duration, n int64) {
	d := cpuTime() - start
	if d > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/1e6/d.Seconds(), "cpu-MB/s")
	}
}
