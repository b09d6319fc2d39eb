package agent

import (
	"context"
	"slices"
	"testing"
	"time"

	"piweb/internal/fakellm"
)

// BenchmarkFirstToken measures the time from "send a message" to the
// first streamed text delta reaching a subscriber: for a session with no
// live worker, cold (pi starts with --session) and from the spare; and
// live, on a worker that has answered once already (its first prompt, pi's
// own first request, is BenchmarkFirstPromptOfProcess's: with b.N = 1, as
// -count runs it, live measured only that one and varied from 90 to 1,800
// ms with the load).
// Run: go test -run XXX -bench FirstToken -benchtime 5x ./internal/agent
func BenchmarkFirstToken(b *testing.B) {
	for _, mode := range []string{"cold", "spare", "live"} {
		b.Run(mode, func(b *testing.B) {
			r := newRig(b)
			s := r.supervisor(func(c *Config) { c.Spare = mode == "spare" })
			file := r.seedSession(s)
			if mode == "live" {
				warmUp(b, r, s, file)
			}
			var lat, acquire []float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if mode == "spare" {
					waitSpare(b, s)
				}
				if mode == "live" {
					s.Worker(context.Background(), file)
				}
				r.llm.Enqueue(fakellm.Text("hello there"))
				rec := watch(b, s.Hub(file))
				ctx := ctxT(b)
				b.StartTimer()
				t0 := time.Now()
				w, err := s.Worker(ctx, file)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := w.Prompt(ctx, "hi", PromptOptions{}); err != nil {
					b.Fatal(err)
				}
				rec.wait(b, 0, isDelta)
				lat = append(lat, ms(time.Since(t0)))
				acquire = append(acquire, ms(t1.Sub(t0)))
				b.StopTimer()
				rec.wait(b, 0, isPhase(PhaseIdle))
				if mode != "live" {
					s.Stop(ctx, file)
				}
			}
			b.ReportMetric(median(lat), "ms-first-token-p50")
			b.ReportMetric(slices.Max(lat), "ms-first-token-max")
			b.ReportMetric(median(acquire), "ms-worker-p50")
		})
	}
}

// warmUp starts the worker of file and has it answer one prompt, untimed.
func warmUp(b *testing.B, r *rig, s *Supervisor, file string) {
	ctx := ctxT(b)
	w, err := s.Worker(ctx, file)
	if err != nil {
		b.Fatal(err)
	}
	r.llm.Enqueue(fakellm.Text("warm"))
	rec := watch(b, s.Hub(file))
	if err := w.Prompt(ctx, "warm up", PromptOptions{}); err != nil {
		b.Fatal(err)
	}
	i := rec.wait(b, 0, isDelta)
	rec.wait(b, i, isPhase(PhaseIdle))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkFirstPromptOfProcess measures prompt → first delta for the
// first prompt of an idle, already started pi, with and without the
// bridge's provider warm-up.
func BenchmarkFirstPromptOfProcess(b *testing.B) {
	for _, warm := range []bool{true, false} {
		name := map[bool]string{true: "warmed", false: "lazy"}[warm]
		b.Run(name, func(b *testing.B) {
			r := newRig(b)
			s := r.supervisor(func(c *Config) {
				if !warm {
					c.Base.Env = append(c.Base.Env, "PIWEB_BRIDGE_NO_WARM=1")
				}
			})
			var lat []float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ctx := ctxT(b)
				w, err := s.StartNew(ctx, r.work)
				if err != nil {
					b.Fatal(err)
				}
				rec := watch(b, w.Hub())
				time.Sleep(2 * time.Second) // let start-up work settle
				r.llm.Enqueue(fakellm.Text("hello there"))
				b.StartTimer()
				t0 := time.Now()
				w.Prompt(ctx, "hi", PromptOptions{})
				rec.wait(b, 0, isDelta)
				lat = append(lat, ms(time.Since(t0)))
				b.StopTimer()
				rec.wait(b, 0, isPhase(PhaseIdle))
				s.Stop(ctx, w.Key())
			}
			b.ReportMetric(median(lat), "ms-first-token-p50")
		})
	}
}
