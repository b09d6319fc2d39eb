package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/fakellm/fakellmtest"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// rig is one live-agent test setup: a fake LLM, a private agent dir (pi
// writes settings.json on set_* commands), a project dir and a session dir.
type rig struct {
	t        testing.TB
	pi       *Pi
	llm      *fakellm.Server
	url      string
	agentDir string
	work     string
	sessions string
}

func newRig(t testing.TB) *rig {
	t.Helper()
	return newRigLLM(t, fakellm.Options{})
}

// newRigLLM is newRig with a fake LLM configured by o.
func newRigLLM(t testing.TB, o fakellm.Options) *rig {
	t.Helper()
	return newRigPi(t, testPi(t), o)
}

// newRigPi is newRigLLM with pi.
func newRigPi(t testing.TB, pi *Pi, o fakellm.Options) *rig {
	t.Helper()
	dir := t.TempDir()
	r := &rig{t: t, pi: pi, agentDir: filepath.Join(dir, "agent"), work: filepath.Join(dir, "work"),
		sessions: filepath.Join(dir, "sessions")}
	r.llm, r.url = fakellmtest.Serve(t, r.agentDir, o)
	os.MkdirAll(r.work, 0o755)
	return r
}

// sys is the number of system messages pi counts in a context of a
// session it started: pi >= 0.86 writes one before the first user message.
func (r *rig) sys() int {
	if r.pi.Version.AtLeast(Version{0, 86, 0}) {
		return 1
	}
	return 0
}

// twoTurnsToCompact is a live session of two short turns that pi can
// compact (compactSmall).
func (r *rig) twoTurnsToCompact() *live {
	r.t.Helper()
	r.compactSmall()
	l := r.live(r.supervisor(nil))
	l.turn("first", fakellm.Text("one"))
	l.turn("second", fakellm.Text("two"))
	return l
}

// compactSmall makes pi keep only the last few tokens when it compacts,
// so that the short sessions of tests have something to compact (pi >=
// 0.80 refuses "Nothing to compact" with its default keepRecentTokens).
func (r *rig) compactSmall() {
	r.t.Helper()
	path := filepath.Join(r.agentDir, "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	s := strings.Replace(string(b), "{", `{"compaction":{"keepRecentTokens":1},`, 1)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// opts are the Options every live test starts pi with.
func (r *rig) opts() Options {
	return Options{
		Pi: r.pi, Cwd: r.work, SessionDir: r.sessions, AgentDir: r.agentDir,
		Model: fakellm.Provider + "/" + fakellm.ModelID,
		Args:  []string{"--no-context-files", "--no-skills", "--no-prompt-templates"},
	}
}

// recorder collects events and lets a test wait for one.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func newRecorder() *recorder { return &recorder{} }

func (r *recorder) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) snapshot() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// wait returns the index of the first event at or after from that matches.
func (r *recorder) wait(t testing.TB, from int, match func(Event) bool) int {
	t.Helper()
	found := -1
	testkit.Eventually(t, func() error {
		evs := r.snapshot()
		for i := from; i < len(evs); i++ {
			if match(evs[i]) {
				found = i
				return nil
			}
		}
		return fmt.Errorf("saw %v", types(evs[min(from, len(evs)):]))
	}, liveWait, "an event")
	return found
}

func (r *recorder) waitType(t testing.TB, from int, typ string) int {
	t.Helper()
	return r.wait(t, from, func(e Event) bool { return e.Type == typ })
}

func types(evs []Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type != EvMessageUpdate {
			out = append(out, e.Type)
		}
	}
	return out
}

// start runs pi with the rig's options changed by edit.
func (r *rig) start(edit func(*Options)) (*Client, *recorder) {
	r.t.Helper()
	rec := newRecorder()
	o := r.opts()
	o.OnEvent = rec.add
	if edit != nil {
		edit(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	c, _, err := Start(ctx, o)
	if err != nil {
		r.t.Fatalf("start pi: %v", err)
	}
	r.t.Cleanup(func() { c.Close(context.Background(), time.Second) })
	return c, rec
}

// liveWait bounds each wait of a live test: generous, since pi's start-up
// takes seconds on a loaded machine, and only a failing test waits it out.
const liveWait = 90 * time.Second

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*liveWait)
	t.Cleanup(cancel)
	return ctx
}

// supervisor returns a Supervisor over the rig's pi options.
func (r *rig) supervisor(edit func(*Config)) *Supervisor {
	cfg := Config{Base: r.opts(), KillGrace: time.Second, BridgeDir: filepath.Join(r.agentDir, "..", "bridge")}
	if edit != nil {
		edit(&cfg)
	}
	s, err := NewSupervisor(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// live is the set-up most live tests share: a supervisor over a rig, a
// worker on a new session in the rig's work dir and a recorder of its
// events from the start.
type live struct {
	*rig
	s   *Supervisor
	w   *Worker
	rec *recorder
	ctx context.Context
}

// newLive starts a new session on a new rig; edit changes the
// supervisor's Config.
func newLive(t testing.TB, edit func(*Config)) *live {
	t.Helper()
	r := newRig(t)
	return r.live(r.supervisor(edit))
}

// eachPi runs f once under each pinned pi, for behaviour that differs
// between pi versions (RPC shapes, the bridge).
func eachPi(t *testing.T, f func(t *testing.T, r *rig)) {
	for _, v := range pitest.Versions {
		t.Run("pi "+string(v), func(t *testing.T) { f(t, newRigPi(t, testPiVersion(t, v), fakellm.Options{})) })
	}
}

// live starts a new session with s.
func (r *rig) live(s *Supervisor) *live {
	r.t.Helper()
	ctx := ctxT(r.t)
	w, err := s.StartNew(ctx, r.work)
	if err != nil {
		r.t.Fatal(err)
	}
	return &live{rig: r, s: s, w: w, rec: watch(r.t, w.Hub()), ctx: ctx}
}

// turn sends prompt, answered by reply, and waits until the worker is
// idle again.
func (l *live) turn(prompt string, reply fakellm.Reply) {
	l.t.Helper()
	from := len(l.rec.snapshot())
	l.llm.Enqueue(reply)
	if err := l.w.Prompt(l.ctx, prompt, PromptOptions{}); err != nil {
		l.t.Fatal(err)
	}
	l.rec.wait(l.t, from, isPhase(PhaseIdle))
}

// watch records everything published on hub from now on, resubscribing
// when it lags as a browser would.
func watch(t testing.TB, hub *Hub) *recorder {
	rec := newRecorder()
	last := hub.Last()
	go func() {
		for {
			replay, sub, _ := hub.Subscribe(last)
			for _, e := range replay {
				rec.add(e)
				last = e.Seq
			}
			for e := range sub.C {
				rec.add(e)
				last = e.Seq
			}
			if !sub.Lagged() {
				return
			}
		}
	}()
	return rec
}

func isDelta(e Event) bool {
	if e.Type != EvMessageUpdate {
		return false
	}
	d, _ := DeltaOf(e)
	return d.Type == "text_delta"
}

func isPhase(p Phase) func(Event) bool {
	return func(e Event) bool { return e.Type == EvState && fieldString(e.Raw, "phase") == string(p) }
}

func stopReason(e Event) string { return MessageOf(e).StopReason }
