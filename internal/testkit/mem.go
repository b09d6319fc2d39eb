package testkit

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Peak measures the most memory a piece of code holds: the Go heap's
// objects, sampled every millisecond, above what was live at the start,
// and the process's resident set, the kernel's high-water mark (VmHWM,
// reset at the start; Linux only, 0 elsewhere), above the start. Memory
// bounds are tested and benchmarked with it (issue 21: a reader holds at
// most a fixed multiple of a file's size).
type Peak struct {
	stop, done        chan struct{}
	heap0, heap, rss0 uint64
}

// heapObjects is the metric sampled: bytes of heap objects, live or not
// yet swept, which is what a spike of garbage shows in too.
const heapObjects = "/memory/classes/heap/objects:bytes"

// StartPeak collects garbage, returns memory to the OS and starts
// measuring.
func StartPeak() *Peak {
	runtime.GC()
	debug.FreeOSMemory()
	p := &Peak{stop: make(chan struct{}), done: make(chan struct{})}
	p.heap0 = heapNow()
	p.heap = p.heap0
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil {
		p.rss0 = procStatus("VmRSS")
	}
	go p.sample()
	return p
}

func (p *Peak) sample() {
	defer close(p.done)
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		p.heap = max(p.heap, heapNow())
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

// Stop ends the measure and returns the peaks above the start in MB (1<<20
// bytes): the heap's objects and the resident set (0 when unknown).
func (p *Peak) Stop() (heapMB, rssMB float64) {
	close(p.stop)
	<-p.done
	p.heap = max(p.heap, heapNow())
	heapMB = float64(p.heap-p.heap0) / (1 << 20)
	if p.rss0 > 0 {
		if hwm := procStatus("VmHWM"); hwm > p.rss0 {
			rssMB = float64(hwm-p.rss0) / (1 << 20)
		}
	}
	return heapMB, rssMB
}

// Peaks are the highest peaks a benchmark's loops measured, in MB.
type Peaks struct{ Heap, RSS float64 }

// Note keeps the peaks of one loop (Peak.Stop's) where they are higher.
func (ps *Peaks) Note(heapMB, rssMB float64) {
	ps.Heap, ps.RSS = max(ps.Heap, heapMB), max(ps.RSS, rssMB)
}

// Report reports the peaks as the benchmarks' peak-heap-MB and
// peak-rss-MB.
func (ps Peaks) Report(b *testing.B) {
	b.ReportMetric(ps.Heap, "peak-heap-MB")
	b.ReportMetric(ps.RSS, "peak-rss-MB")
}

// ReportLatencies sorts lat and reports its median and 99th percentile,
// in milliseconds, as the benchmark's prefix+"p50-ms" and prefix+"p99-ms".
func ReportLatencies(b *testing.B, prefix string, lat []time.Duration) {
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), prefix+"p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), prefix+"p99-ms")
}

func heapNow() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// procStatus returns a "kB" field of /proc/self/status in bytes, 0 when
// there is none.
func procStatus(field string) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		rest, ok := bytes.CutPrefix(line, []byte(field+":"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		n, _ := strconv.ParseUint(string(f[0]), 10, 64)
		return n << 10
	}
	return 0
}

// Held returns, after a garbage collection, the resident set now above
// the start in MB: what the measured code left behind (a cache it filled),
// not its peak. 0 when unknown.
func (p *Peak) Held() float64 {
	runtime.GC()
	now := procStatus("VmRSS")
	if p.rss0 == 0 || now <= p.rss0 {
		return 0
	}
	return float64(now-p.rss0) / (1 << 20)
}

// EnvInt is a size a benchmark or a long test takes from the environment
// variable name: a positive whole number, else def.
func EnvInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
