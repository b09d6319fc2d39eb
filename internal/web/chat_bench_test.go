package web

import (
	"strings"
	"testing"
	"time"

	"piweb/internal/fakellm"
)

// BenchmarkChatStream measures, in Chromium with real pi and the fake LLM:
// Enter to first token shown with a live worker (enter-live-ms), and the main-thread time of one
// streamed-delta draw at the start and at the end of a 12 KB answer
// (draw-first-us, draw-last-us; they must stay flat).
//
//	go test ./internal/web -run '^$' -bench ChatStream -benchtime 1x
func BenchmarkChatStream(b *testing.B) {
	r := newChatRig(b)
	r.llm.Enqueue(fakellm.Text("ready"))
	r.startSession(b, "bench")
	r.waitJS(b, `document.querySelector('.conv')?.innerText.includes('ready')`)
	long := strings.Repeat(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 10)+"\n\n", 27) // ~12 KB in paragraphs
	for i := 0; i < b.N; i++ {
		r.llm.Enqueue(fakellm.Text(long).WithChunks(400).WithDelay(5 * time.Millisecond))
		eval[bool](b, r.browser, `(window.__pwPerf = {draws: [], first: 0}, true)`)
		start := eval[float64](b, r.browser, `performance.now()`)
		r.send(b, "long answer please")
		r.waitJS(b, `window.__pwPerf.first > 0`)
		first := eval[float64](b, r.browser, `window.__pwPerf.first`)
		r.waitJS(b, `document.querySelector('.composer .send')?.textContent === 'Send' && !document.querySelector('.live-msg')`)
		d := eval[[]float64](b, r.browser, `window.__pwPerf.draws`)
		n := len(d) / 5
		if n == 0 {
			b.Fatalf("only %d draws", len(d))
		}
		b.ReportMetric(first-start, "enter-live-ms")
		b.ReportMetric(mean(d[:n])*1000, "draw-first-us")
		b.ReportMetric(mean(d[len(d)-n:])*1000, "draw-last-us")
		b.ReportMetric(float64(len(d)), "draws")
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
