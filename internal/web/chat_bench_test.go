package web

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/fakellm"
)

// BenchmarkChatStream measures, in Chromium with real pi and the fake LLM,
// the main-thread time of one streamed-delta draw at the start and at the
// end of a 12 KB answer (the first and last fifth of its draws; they must
// stay flat). draw-first-us and draw-last-us are means, which a few draws
// held up by the machine (tens of ms on a loaded one, most often in a
// fresh page's first answer) move by whole milliseconds; draw-first-p50-us
// and draw-last-p50-us are medians, steady across runs, to compare. Every
// figure is over all b.N answers.
//
//	go test ./internal/web -run '^$' -bench ChatStream -benchtime 3x
func BenchmarkChatStream(b *testing.B) {
	r := newChatRig(b)
	r.llm.Enqueue(fakellm.Text("ready"))
	r.startSession(b, "bench")
	r.waitJS(b, `document.querySelector('.conv')?.innerText.includes('ready')`)
	long := strings.Repeat(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 10)+"\n\n", 27) // ~12 KB in paragraphs
	var first, last []float64
	draws := 0
	for i := 0; i < b.N; i++ {
		r.llm.Enqueue(fakellm.Text(long).WithChunks(400).WithDelay(5 * time.Millisecond))
		r.enterTimed(b, "long answer please", "")
		r.waitJS(b, `window.__pwPerf.first > 0`)
		r.waitJS(b, `document.querySelector('.composer .send')?.textContent === 'Send' && !document.querySelector('.live-msg')`)
		d := eval[[]float64](b, r.browser, `window.__pwPerf.draws`)
		n := len(d) / 5
		if n == 0 {
			b.Fatalf("only %d draws", len(d))
		}
		first = append(first, d[:n]...)
		last = append(last, d[len(d)-n:]...)
		draws += len(d)
	}
	b.ReportMetric(mean(first)*1000, "draw-first-us")
	b.ReportMetric(mean(last)*1000, "draw-last-us")
	b.ReportMetric(median(first)*1000, "draw-first-p50-us")
	b.ReportMetric(median(last)*1000, "draw-last-p50-us")
	b.ReportMetric(float64(draws)/float64(b.N), "draws")
}

// BenchmarkChatEnterToFirstToken measures, in the page, from the Enter
// key to the first streamed token drawn, with piweb serve's supervisor
// (a spare pi kept started): "live" for a session whose pi is running,
// "cold" for one whose pi was stopped (the spare is switched to it), and
// "cold-nospare" without the spare (pi starts from scratch). The rounds
// alternate live and cold; each case reports its best and median.
//
//	go test ./internal/web -run '^$' -bench ChatEnterToFirstToken -benchtime 5x
func BenchmarkChatEnterToFirstToken(b *testing.B) {
	if out, err := exec.Command("uptime").Output(); err == nil {
		b.Logf("uptime: %s", strings.TrimSpace(string(out)))
	}
	spare := newChatRigWith(b, agent.Config{Spare: true})
	path := benchSession(b, spare)
	var live, cold []float64
	for range b.N {
		live = append(live, firstToken(b, spare))
		spare.stopWorker(b, path)
		waitFor(b, "a spare pi", spare.agent.Supervisor().SpareReady)
		cold = append(cold, firstToken(b, spare))
	}
	bare := newChatRig(b)
	barePath := benchSession(b, bare)
	var coldBare []float64
	for range b.N {
		bare.stopWorker(b, barePath)
		coldBare = append(coldBare, firstToken(b, bare))
	}
	report(b, "live", live)
	report(b, "cold", cold)
	report(b, "cold-nospare", coldBare)
}

// benchSession starts a session, waits for its first answer and returns
// its file.
func benchSession(b *testing.B, r *chatRig) string {
	r.llm.Enqueue(fakellm.Text("ready"))
	id := r.startSession(b, "bench")
	r.waitAnswer(b, "ready")
	return r.detail(b, id).Session.Path
}

// firstToken sends a prompt and returns the milliseconds from Enter to
// its first token on screen (the first word in the conversation, seen by
// a MutationObserver), once the answer is complete.
func firstToken(b *testing.B, r *chatRig) float64 {
	r.llm.Enqueue(fakellm.Text("Firsttoken and then some more words.").WithChunks(4))
	r.enterTimed(b, "quick question", "Firsttoken")
	r.waitJS(b, `window.__pwPerf.shown > 0`)
	r.waitText(b, "some more words.")
	r.waitIdle(b)
	return eval[float64](b, r.browser, `window.__pwPerf.shown - window.__pwPerf.start`)
}

// enterTimed types a message and presses Enter, with the page's clock
// started at the key: stream.js records each draw in window.__pwPerf, and
// the time the conversation first contains expect (if set) is noted.
func (r *chatRig) enterTimed(b *testing.B, text, expect string) {
	r.typeIn(b, text)
	eval[bool](b, r.browser, fmt.Sprintf(`(() => {
		const perf = window.__pwPerf = {draws: [], first: 0, shown: 0, start: 0};
		const conv = document.querySelector('.conv');
		const o = new MutationObserver(() => {
			if (%q && conv.textContent.includes(%q)) { perf.shown = performance.now(); o.disconnect(); }
		});
		o.observe(conv, {subtree: true, childList: true, characterData: true});
		perf.start = performance.now();
		document.querySelector('.composer textarea').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true}));
		return true; })()`, expect, expect))
}

// stopWorker stops the session's pi and waits until the page knows. The
// page's own queries when pi turns idle (context use, models) would start
// a new pi if they land after the stop, so it stops again until none runs.
func (r *chatRig) stopWorker(b *testing.B, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitFor(b, "the worker to stay stopped", func() bool {
		r.agent.Stop(ctx, path)
		time.Sleep(300 * time.Millisecond)
		return r.agent.State(path) == ""
	})
	r.waitJS(b, `document.querySelector('.composer .send')?.textContent === 'Send'`)
}

func report(b *testing.B, name string, ms []float64) {
	s := slices.Clone(ms)
	slices.Sort(s)
	b.ReportMetric(s[0], name+"-best-ms")
	b.ReportMetric(s[len(s)/2], name+"-median-ms")
	b.Logf("%s: %s ms", name, fmtMs(ms))
}

func fmtMs(ms []float64) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%.0f", m))
	}
	return strings.Join(parts, " ")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
