package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/fakellm"
)

// seedSession makes a session file with one exchange and no live worker.
func (r *rig) seedSession(s *Supervisor) string {
	r.t.Helper()
	l := r.live(s)
	l.turn("seed", fakellm.Text("seeded"))
	key := l.w.Key()
	s.Stop(l.ctx, key)
	return key
}

func waitSpare(t testing.TB, s *Supervisor) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !s.SpareReady() {
		if time.Now().After(deadline) {
			t.Fatal("spare never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLiveSpare(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(func(c *Config) { c.Spare = true })
	file := r.seedSession(s)
	waitSpare(t, s)
	ctx := ctxT(t)
	rec := watch(t, s.Hub(file))
	before := fileSize(t, file)
	start := time.Now()
	w, err := s.Worker(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("worker from spare in %v", time.Since(start))
	if after := fileSize(t, file); after != before {
		t.Errorf("opening the session wrote to it: %d -> %d bytes", before, after)
	}
	if st := w.State(); st.SessionFile != file || st.MessageCount-r.sys() != 2 {
		t.Fatalf("spare state: file %s, %d messages", st.SessionFile, st.MessageCount)
	}
	r.llm.Enqueue(fakellm.Text("from the spare"))
	if err := w.Prompt(ctx, "again", PromptOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, 0, isDelta)
	t.Logf("first token after %v", time.Since(start))
	rec.wait(t, 0, isPhase(PhaseIdle))
	if n := len(r.llm.LastRequest().Messages); n < 4 {
		t.Errorf("LLM saw %d messages, want the seeded history too", n)
	}

	// A session whose cwd is gone is reported the same way via a spare.
	waitSpare(t, s)
	gone := filepath.Join(t.TempDir(), "gone")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"type":"session","version":3,"id":"01a2363b-630c-72b5-aeec-3e7ae5168fd7","timestamp":"2026-12-02T10:00:00.000Z","cwd":"`+gone+`"}`+"\n"), 0o644)
	_, err = s.Worker(ctx, bad)
	var cg *CwdGoneError
	if !errors.As(err, &cg) || cg.Dir != gone {
		t.Errorf("cwd gone via spare: %v", err)
	}
	_ = context.Background
}

func fileSize(t testing.TB, file string) int64 {
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
