package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// transcriptOut returns the stdout lines of a recorded real pi session,
// compacted as pi writes them (the recorder added spaces; key order, which
// matters to the skimmer, is pi's).
func transcriptOut(t testing.TB, name string) [][]byte {
	var out [][]byte
	for _, tl := range readTranscript(t, name) {
		if tl.Dir == "out" {
			var buf bytes.Buffer
			json.Compact(&buf, tl.Msg)
			out = append(out, buf.Bytes())
		}
	}
	return out
}

// BenchmarkStdoutToSubscriber measures the latency piweb adds between pi
// writing a line on stdout and a subscriber receiving it: pipe, LF framing,
// type skim, state machine, Hub, channel. Lines are the real 12 KB-answer
// stream (s14_long_answer: 512 lines, 6.5 MB, up to 37 KB each), sent one
// at a time so nothing queues.
// Run: go test -run XXX -bench StdoutToSubscriber ./internal/agent
func BenchmarkStdoutToSubscriber(b *testing.B) {
	lines := transcriptOut(b, "s14_long_answer")
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	w := newWorker("/k", NewHub(), 0)
	c := &Client{pending: map[string]*call{}}
	c.opts.OnEvent = w.onEvent
	pr, pw, _ := os.Pipe()
	go c.readLines(pr)
	_, sub, _ := w.Hub().Subscribe(0)
	var lat []time.Duration
	bw := bufio.NewWriterSize(pw, 64<<10)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			t0 := time.Now()
			bw.Write(l)
			bw.WriteByte('\n')
			bw.Flush()
			for {
				e := <-sub.C
				if e.Type != EvState {
					break
				}
			}
			lat = append(lat, time.Since(t0))
		}
	}
	b.StopTimer()
	pw.Close()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "µs-p50")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "µs-p99")
}

// BenchmarkSkimType compares reading the type of a 37 KB message_update
// by skimming against decoding it.
func BenchmarkSkimType(b *testing.B) {
	lines := transcriptOut(b, "s14_long_answer")
	big := slices.MaxFunc(lines, func(x, y []byte) int { return len(x) - len(y) })
	b.Run("skim", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for b.Loop() {
			if fieldString(big, "type") != EvMessageUpdate {
				b.Fatal("type")
			}
		}
	})
	b.Run("delta", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		e := Event{Type: EvMessageUpdate, Raw: big}
		for b.Loop() {
			if _, ok := DeltaOf(e); !ok {
				b.Fatal("delta")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for b.Loop() {
			var v struct{ Type string }
			json.Unmarshal(big, &v)
		}
	})
}

// BenchmarkMemory starts 8 real pi workers, lets them idle, and reports the
// RSS of each pi and of this (piweb) process.
// Run: go test -run XXX -bench Memory -benchtime 1x ./internal/agent
func BenchmarkMemory(b *testing.B) {
	r := newRig(b)
	s := r.supervisor(nil)
	for i := 0; i < b.N; i++ {
		ctx := ctxT(b)
		var ws []*Worker
		for j := 0; j < 8; j++ {
			w, err := s.StartNew(ctx, r.work)
			if err != nil {
				b.Fatal(err)
			}
			ws = append(ws, w)
		}
		time.Sleep(3 * time.Second)
		var sum float64
		for _, w := range ws {
			sum += rssMB(b, w.Client().Pid())
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(sum/8, "MB-rss-per-idle-pi")
		b.ReportMetric(rssMB(b, os.Getpid()), "MB-rss-piweb-8-live")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap-piweb-8-live")
		for _, w := range ws {
			s.Stop(ctx, w.Key())
		}
	}
}

func rssMB(t testing.TB, pid int) float64 {
	b := testkit.ReadFile(t, "/proc/"+strconv.Itoa(pid)+"/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(v)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}
