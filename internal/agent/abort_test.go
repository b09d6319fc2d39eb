package agent

import (
	"bytes"
	"os"
	"slices"
	"testing"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// TestLiveAbortCompaction aborts a compaction whose summary request the
// fake LLM holds: a manual one through the bridge (pi ends it itself) and
// by killing pi when there is no bridge, and an automatic one. Each time
// the file is byte for byte what it was, and pi opens it and continues.
func TestLiveAbortCompaction(t *testing.T) {
	for _, tt := range []struct {
		name        string
		bridge      bool
		auto        bool
		wantStopped bool
	}{
		{"manual", true, false, false},
		{"manual without bridge", false, false, true},
		{"automatic", true, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRigLLM(t, fakellm.Options{ScriptSummaries: true})
			r.compactSmall()
			l := r.live(r.supervisor(func(c *Config) {
				if !tt.bridge {
					c.BridgeDir = ""
				}
			}))
			l.turn("first", fakellm.Text("one"))
			l.turn("second", fakellm.Text("two"))
			file := l.w.Key()
			start := len(l.rec.snapshot())
			hold := make(chan struct{})
			defer close(hold)
			summary := fakellm.Text(fakellm.DefaultSummary).WithHold(hold, 1)
			done := make(chan error, 1)
			if tt.auto {
				// Over the threshold: pi compacts after the turn by itself.
				l.llm.Enqueue(fakellm.Text("big").WithUsage(120000, 10), summary)
				if err := l.w.Prompt(l.ctx, "third", PromptOptions{}); err != nil {
					t.Fatal(err)
				}
			} else {
				l.llm.Enqueue(summary)
				go func() {
					done <- l.w.Do(func(c *Client) error { _, err := c.Compact(l.ctx, ""); return err })
				}()
			}
			l.rec.wait(t, start, isPhase(PhaseCompacting))
			before, _ := os.ReadFile(file) // the turn's entries are written by now
			waitHeld(t, l.llm)
			res, err := l.s.AbortCompaction(l.ctx, file)
			// pi >= 0.85 aborts a compaction with RPC abort: no kill needed.
			wantStopped := tt.wantStopped && !r.pi.Version.AtLeast(VersionAbortCompaction)
			if err != nil || !res.Running || !res.Aborted || res.Stopped != wantStopped {
				t.Fatalf("abort: %+v %v", res, err)
			}
			if !tt.auto {
				if err := testkit.Recv(t, done, 10*time.Second, "the compact command's return"); err == nil {
					t.Error("the compact command succeeded")
				}
			}
			if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
				t.Errorf("the file changed:\n%s", after[len(before):])
			}
			if !wantStopped && l.s.Live(file) != l.w {
				t.Error("the worker was replaced")
			}
			// pi (the same or a new one) opens the file and continues it.
			from := len(l.rec.snapshot())
			l.llm.Enqueue(fakellm.Text("after"))
			if _, err := l.s.Prompt(l.ctx, file, "after the abort", PromptOptions{}); err != nil {
				t.Fatal(err)
			}
			l.rec.wait(t, l.rec.waitType(t, from, EvAgentEnd), isPhase(PhaseIdle))
			if got := len(messages(readEntries(t, file), "user")); got != len(messages(readEntries(t, file), "assistant")) {
				t.Errorf("%d user messages, and not as many answers", got)
			}
			if res, err := l.s.AbortCompaction(l.ctx, file); err != nil || res.Running {
				t.Errorf("abort with no compaction: %+v %v", res, err)
			}
		})
	}
}

// waitHeld waits until the fake LLM has received a summarization request
// (the held one).
func waitHeld(t *testing.T, llm *fakellm.Server) {
	t.Helper()
	testkit.Eventually(t, func() bool {
		return slices.ContainsFunc(llm.Requests(), func(r *fakellm.Request) bool { return r.Kind() != fakellm.KindChat })
	}, liveWait, "a summarization request")
}
