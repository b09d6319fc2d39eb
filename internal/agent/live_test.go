package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

func slowText(n int) fakellm.Reply {
	return fakellm.Text(strings.Repeat("word ", n)).WithChunks(n).WithDelay(50 * time.Millisecond)
}

func TestLiveSteerAndFollowUp(t *testing.T) {
	l := newLive(t, nil)
	l.llm.Enqueue(slowText(30), fakellm.Text("after steer"), fakellm.Text("after follow-up"))
	if err := l.w.Prompt(l.ctx, "first", PromptOptions{}); err != nil {
		t.Fatal(err)
	}
	i := l.rec.wait(t, 0, isDelta)
	if err := l.w.Prompt(l.ctx, "second", PromptOptions{}); !errors.Is(err, ErrBusy) {
		t.Errorf("plain prompt while streaming: %v, want ErrBusy", err)
	}
	if err := l.w.Prompt(l.ctx, "steered", PromptOptions{Behavior: Steer}); err != nil {
		t.Fatal(err)
	}
	if err := l.w.Prompt(l.ctx, "followed", PromptOptions{Behavior: FollowUp}); err != nil {
		t.Fatal(err)
	}
	q := l.rec.wait(t, i, func(e Event) bool {
		return e.Type == EvState && strings.Contains(string(e.Raw), `"followUp":["followed"]`)
	})
	if !strings.Contains(string(l.rec.snapshot()[q].Raw), `"steering":["steered"]`) {
		t.Errorf("queue state %s", l.rec.snapshot()[q].Raw)
	}
	end := l.rec.wait(t, q, isPhase(PhaseIdle))
	starts := 0
	for _, e := range l.rec.snapshot()[:end] {
		if e.Type == EvAgentStart {
			starts++
		}
	}
	reqs := l.llm.Requests()
	if len(reqs) != 3 || reqs[1].LastUserText() != "steered" || reqs[2].LastUserText() != "followed" {
		t.Fatalf("%d requests", len(reqs))
	}
	if starts != 1 {
		t.Errorf("%d agent runs, want 1 (queued messages join the run)", starts)
	}
	if st := l.w.Status(); len(st.Steering)+len(st.FollowUp) != 0 || st.Busy() {
		t.Errorf("final status %+v", st)
	}
}

func TestLiveAbort(t *testing.T) {
	l := newLive(t, nil)
	abort := func() {
		if err := l.w.Do(func(c *Client) error { return c.Abort(l.ctx) }); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("stream", func(t *testing.T) {
		l.llm.Enqueue(slowText(60))
		l.w.Prompt(l.ctx, "talk slowly", PromptOptions{})
		i := l.rec.wait(t, 0, isDelta)
		abort()
		j := l.rec.wait(t, i, func(e Event) bool { return e.Type == EvMessageEnd && MessageOf(e).Role == "assistant" })
		if got := stopReason(l.rec.snapshot()[j]); got != "aborted" {
			t.Errorf("stopReason %q", got)
		}
		l.rec.wait(t, j, isPhase(PhaseIdle))
	})
	t.Run("tool", func(t *testing.T) {
		from := len(l.rec.snapshot())
		l.llm.Enqueue(fakellm.Tools(fakellm.Bash("sleep 20")))
		start := time.Now()
		l.w.Prompt(l.ctx, "sleep", PromptOptions{})
		i := l.rec.waitType(t, from, EvToolStart)
		abort()
		j := l.rec.waitType(t, i, EvToolEnd)
		if !strings.Contains(string(l.rec.snapshot()[j].Raw), `"isError":true`) {
			t.Errorf("tool end %s", l.rec.snapshot()[j].Raw)
		}
		l.rec.wait(t, j, isPhase(PhaseIdle))
		if time.Since(start) > 15*time.Second {
			t.Error("abort did not kill the tool")
		}
	})
}

func TestLiveRetry(t *testing.T) {
	r := newRig(t)
	// A long back-off so the test can look at the worker during it.
	settings := filepath.Join(r.agentDir, "settings.json")
	b, _ := os.ReadFile(settings)
	os.WriteFile(settings, []byte(strings.Replace(string(b), `"baseDelayMs": 50`, `"baseDelayMs": 1500`, 1)), 0o644)
	l := r.live(r.supervisor(nil))
	l.llm.Enqueue(fakellm.Error(503, "overloaded"), fakellm.Text("recovered"))
	l.w.Prompt(l.ctx, "hello", PromptOptions{})
	i := l.rec.wait(t, 0, isPhase(PhaseRetrying))
	st, err := l.w.Client().GetState(l.ctx)
	if err != nil || (st.IsStreaming && !r.pi.Version.AtLeast(VersionSettled)) {
		t.Errorf("pi's get_state during back-off: %+v %v (spec: isStreaming false)", st.IsStreaming, err)
	}
	if err := l.w.Prompt(l.ctx, "meanwhile", PromptOptions{}); !errors.Is(err, ErrBusy) {
		t.Errorf("prompt during back-off: %v, want ErrBusy", err)
	}
	j := l.rec.waitType(t, i, EvAutoRetryEnd)
	if !strings.Contains(string(l.rec.snapshot()[j].Raw), `"success":true`) {
		t.Errorf("retry end %s", l.rec.snapshot()[j].Raw)
	}
	l.rec.wait(t, j, isPhase(PhaseIdle))
	if text, _ := l.w.Client().GetLastAssistantText(l.ctx); text != "recovered" {
		t.Errorf("answer %q", text)
	}
}

func TestLiveCompaction(t *testing.T) {
	l := newRig(t).twoTurnsToCompact()
	t.Run("manual", func(t *testing.T) {
		var res CompactionResult
		err := l.w.Do(func(c *Client) (err error) { res, err = c.Compact(l.ctx, ""); return err })
		if err != nil || !strings.HasPrefix(res.Summary, fakellm.DefaultSummary[:10]) {
			t.Fatalf("compact: %v %q", err, res.Summary)
		}
		i := l.rec.wait(t, 0, isPhase(PhaseCompacting))
		l.rec.wait(t, i, isPhase(PhaseIdle))
	})
	t.Run("threshold", func(t *testing.T) {
		from := len(l.rec.snapshot())
		l.llm.Enqueue(fakellm.Text("big").WithUsage(120000, 10))
		l.w.Prompt(l.ctx, "third", PromptOptions{})
		i := l.rec.wait(t, from, func(e Event) bool {
			return e.Type == EvCompactionStart && fieldString(e.Raw, "reason") == "threshold"
		})
		j := l.rec.waitType(t, i, EvCompactionEnd)
		l.rec.wait(t, j, isPhase(PhaseIdle))
		// The machine was never idle between agent_end and compaction_start.
		for _, e := range l.rec.snapshot()[from:i] {
			if isPhase(PhaseIdle)(e) {
				t.Error("idle announced before the automatic compaction")
			}
		}
	})
	t.Run("overflow", func(t *testing.T) {
		from := len(l.rec.snapshot())
		l.llm.Enqueue(fakellm.Overflow(), fakellm.Text("fits now"))
		l.w.Prompt(l.ctx, "fourth", PromptOptions{})
		i := l.rec.wait(t, from, func(e Event) bool {
			return e.Type == EvCompactionEnd && strings.Contains(string(e.Raw), `"willRetry":true`)
		})
		j := l.rec.waitType(t, i, EvAgentStart)
		for _, e := range l.rec.snapshot()[i:j] {
			if isPhase(PhaseIdle)(e) {
				t.Error("idle announced between overflow compaction and its retry")
			}
		}
		l.rec.wait(t, j, isPhase(PhaseIdle))
		if text, _ := l.w.Client().GetLastAssistantText(l.ctx); text != "fits now" {
			t.Errorf("answer %q", text)
		}
	})
}

func TestLiveForkCloneNew(t *testing.T) {
	l := newLive(t, nil)
	l.turn("first", fakellm.Text("one"))
	l.turn("second", fakellm.Text("two"))
	orig := l.w.Key()
	var msgs []ForkMessage
	l.w.Do(func(c *Client) (err error) { msgs, err = c.GetForkMessages(l.ctx); return err })
	if len(msgs) != 2 {
		t.Fatalf("fork messages %+v", msgs)
	}
	res, err := l.w.Fork(l.ctx, msgs[1].EntryID)
	if err != nil || res.Text != "second" {
		t.Fatalf("fork: %+v %v", res, err)
	}
	forked := l.w.Key()
	if forked == orig || l.s.Live(forked) != l.w || l.s.Live(orig) != nil {
		t.Errorf("after fork: key %s live(new)=%v live(orig)=%v", forked, l.s.Live(forked) != nil, l.s.Live(orig) != nil)
	}
	l.rec.waitType(t, 0, EvSessionChanged)
	hdr := readHeader(t, forked)
	if hdr.ParentSession != orig {
		t.Errorf("forked header parentSession %q, want %q", hdr.ParentSession, orig)
	}
	if n := l.w.State().MessageCount - l.sys(); n != 2 {
		t.Errorf("forked context has %d messages, want 2 (first + answer)", n)
	}

	if err := l.w.Clone(l.ctx); err != nil {
		t.Fatal(err)
	}
	cloned := l.w.Key()
	if cloned == forked || readHeader(t, cloned).ParentSession != forked {
		t.Errorf("clone %s of %s", cloned, forked)
	}
	if err := l.w.NewSession(l.ctx, ""); err != nil {
		t.Fatal(err)
	}
	if fresh := l.w.Key(); fresh == cloned || l.w.State().MessageCount != 0 || l.s.Live(fresh) != l.w {
		t.Errorf("new session %s messages %d", fresh, l.w.State().MessageCount)
	}
}

type header struct {
	ParentSession string `json:"parentSession"`
	Cwd           string `json:"cwd"`
}

func readHeader(t *testing.T, file string) header {
	t.Helper()
	b := testkit.ReadFile(t, file)
	line, _, _ := strings.Cut(string(b), "\n")
	var h header
	json.Unmarshal([]byte(line), &h)
	return h
}

func TestLiveCrashMidStream(t *testing.T) {
	l := newLive(t, nil)
	key := l.w.Key()
	l.llm.Enqueue(fakellm.Text("persisted"))
	l.w.Prompt(l.ctx, "first", PromptOptions{})
	idle := l.rec.wait(t, 0, isPhase(PhaseIdle))
	l.llm.Enqueue(slowText(60))
	l.w.Prompt(l.ctx, "second", PromptOptions{})
	i := l.rec.wait(t, idle, isDelta)
	syscall.Kill(l.w.Client().Pid(), syscall.SIGKILL)
	j := l.rec.waitType(t, i, EvExit)
	var n ExitNotice
	DecodeEvent(l.rec.snapshot()[j], &n)
	if n.Reason != "crashed" || n.Signal != "killed" {
		t.Errorf("exit notice %+v", n)
	}
	if l.s.Live(key) != nil {
		t.Error("crashed worker still live")
	}
	// The next command restarts pi on the same file.
	w2, err := l.s.Worker(l.ctx, key)
	if err != nil || w2 == l.w {
		t.Fatalf("restart: %v", err)
	}
	// Once the file exists pi appends each entry as it ends: the second
	// user message survived, the partial answer did not.
	if n := w2.State().MessageCount - l.sys(); n != 3 {
		t.Errorf("restarted pi sees %d messages, want 3", n)
	}
	l.llm.Enqueue(fakellm.Text("back"))
	k := len(l.rec.snapshot())
	if w3, err := l.s.Prompt(l.ctx, key, "third", PromptOptions{}); err != nil || w3 != w2 {
		t.Fatal(err)
	}
	l.rec.wait(t, k, isPhase(PhaseIdle))
}

func TestLiveSupervisorCwdGone(t *testing.T) {
	r := newRig(t)
	s := r.supervisor(nil)
	gone := filepath.Join(t.TempDir(), "deleted-project")
	file := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(file, []byte(`{"type":"session","version":3,"id":"01a2363b-630c-72b5-aeec-3e7ae5168fd9","timestamp":"2026-12-02T10:00:00.000Z","cwd":"`+gone+`"}`+"\n"), 0o644)
	rec := watch(t, s.Hub(file))
	_, err := s.Worker(ctxT(t), file)
	var cg *CwdGoneError
	if !errors.As(err, &cg) || cg.Dir != gone {
		t.Fatalf("err = %v", err)
	}
	i := rec.waitType(t, 0, EvExit)
	if got := fieldString(rec.snapshot()[i].Raw, "cwdGone"); got != gone {
		t.Errorf("notice %s", rec.snapshot()[i].Raw)
	}
}

func TestLiveExtensionDialog(t *testing.T) {
	r := newRig(t)
	ext := pitest.Extension(t, "ask")
	s := r.supervisor(func(c *Config) {
		c.Base.Extensions = []string{ext}
		c.UITimeout = 2 * time.Second
	})
	l := r.live(s)
	ctx, w, rec := l.ctx, l.w, l.rec
	isDialog := func(method string) func(Event) bool {
		return func(e Event) bool { return e.Type == EvExtensionUIRequest && fieldString(e.Raw, "method") == method }
	}
	done := make(chan error, 1)
	go func() { done <- w.Prompt(ctx, "/ask", PromptOptions{}) }()

	i := rec.wait(t, 0, isDialog("confirm"))
	var req UIRequest
	DecodeEvent(rec.snapshot()[i], &req)
	yes := true
	if err := w.AnswerUI(req.ID, UIAnswer{Confirmed: &yes}); err != nil {
		t.Fatal(err)
	}
	if err := w.AnswerUI(req.ID, UIAnswer{Confirmed: &yes}); !errors.Is(err, ErrNoDialog) {
		t.Errorf("second answer: %v", err)
	}
	// The select is left unanswered: piweb's timeout cancels it.
	j := rec.wait(t, i, isDialog("select"))
	k := rec.waitType(t, j, EvExtensionUITimeout)
	n := rec.wait(t, k, isDialog("notify"))
	if got := fieldString(rec.snapshot()[n].Raw, "message"); got != "ok=true pick=undefined" {
		t.Errorf("extension saw %q", got)
	}
	if err := <-done; err != nil {
		t.Errorf("prompt /ask: %v", err)
	}
}
