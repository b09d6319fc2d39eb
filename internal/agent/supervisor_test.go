package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"piweb/internal/pitest"
)

// fakeProc stands in for pi in the supervisor's timing tests (which run
// in a synctest bubble, where real processes cannot live).
type fakeProc struct {
	once   sync.Once
	done   chan struct{}
	exit   *ExitError
	closed atomic.Bool
}

func newFakeProc() *fakeProc { return &fakeProc{done: make(chan struct{})} }

func (p *fakeProc) Done() <-chan struct{} { return p.done }
func (p *fakeProc) Exit() *ExitError      { return p.exit }
func (p *fakeProc) Close(ctx context.Context, grace time.Duration) {
	p.closed.Store(true)
	p.crash(&ExitError{Status: 143, Signal: "terminated"})
}
func (p *fakeProc) crash(e *ExitError) {
	p.once.Do(func() { p.exit = e; close(p.done) })
}

// fakeSupervisor returns a supervisor whose launches take startDelay and
// record their processes.
func fakeSupervisor(cfg Config, startDelay time.Duration) (*Supervisor, *[]*fakeProc, *sync.Mutex) {
	s, err := NewSupervisor(cfg)
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	var procs []*fakeProc
	s.launch = func(ctx context.Context, w *Worker) error {
		time.Sleep(startDelay)
		p := newFakeProc()
		mu.Lock()
		procs = append(procs, p)
		mu.Unlock()
		w.mu.Lock()
		w.proc = p
		w.lastUse = time.Now()
		w.mu.Unlock()
		return nil
	}
	return s, &procs, &mu
}

// sessionFiles makes empty files for the keys the timing tests use (the
// supervisor refuses to start pi on a missing file).
func sessionFiles(t *testing.T, names ...string) map[string]string {
	dir := t.TempDir()
	out := map[string]string{}
	for _, n := range names {
		out[n] = filepath.Join(dir, n+".jsonl")
		os.WriteFile(out[n], nil, 0o644)
	}
	return out
}

func TestSupervisorMissingFile(t *testing.T) {
	s, procs, _ := fakeSupervisor(Config{}, 0)
	defer s.Close(context.Background())
	_, err := s.Worker(context.Background(), filepath.Join(t.TempDir(), "none.jsonl"))
	if !errors.Is(err, fs.ErrNotExist) || len(*procs) != 0 {
		t.Errorf("err = %v, %d starts", err, len(*procs))
	}
}

func TestSupervisorPiMissing(t *testing.T) {
	f := sessionFiles(t, "a")
	s, err := NewSupervisor(Config{Base: Options{Pi: &Pi{Path: filepath.Join(t.TempDir(), "no-pi")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	hub := s.Hub(f["a"])
	_, sub, _ := hub.Subscribe(0)
	if _, err := s.Worker(context.Background(), f["a"]); !errors.Is(err, ErrPiMissing) {
		t.Fatalf("err = %v, want ErrPiMissing", err)
	}
	if e := <-sub.C; e.Type != EvExit || fieldString(e.Raw, "reason") != "start failed" {
		t.Errorf("notice %s", e.Raw)
	}
}

func TestSupervisorSharedStart(t *testing.T) {
	f := sessionFiles(t, "a")
	synctest.Test(t, func(t *testing.T) {
		s, procs, _ := fakeSupervisor(Config{}, 1500*time.Millisecond)
		defer s.Close(context.Background())
		var wg sync.WaitGroup
		ws := make([]*Worker, 10)
		for i := range ws {
			wg.Go(func() {
				w, err := s.Worker(context.Background(), f["a"])
				if err != nil {
					t.Error(err)
				}
				ws[i] = w
			})
		}
		wg.Wait()
		if len(*procs) != 1 {
			t.Fatalf("%d starts, want 1", len(*procs))
		}
		for _, w := range ws {
			if w != ws[0] {
				t.Fatal("callers got different workers")
			}
		}
	})
}

func TestSupervisorIdleTimeout(t *testing.T) {
	f := sessionFiles(t, "busy", "idle")
	synctest.Test(t, func(t *testing.T) {
		s, procs, _ := fakeSupervisor(Config{}, time.Second)
		defer s.Close(context.Background())
		ctx := context.Background()
		idle, _ := s.Worker(ctx, f["idle"])
		busy, _ := s.Worker(ctx, f["busy"])
		_, sub, _ := s.Hub(f["idle"]).Subscribe(s.Hub(f["idle"]).Last())
		busy.onEvent(Event{Type: EvAgentStart, Raw: []byte(`{"type":"agent_start"}`)})

		time.Sleep(DefaultIdleTimeout - time.Minute)
		synctest.Wait()
		if (*procs)[0].closed.Load() {
			t.Fatal("stopped before the idle timeout")
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if !(*procs)[0].closed.Load() || s.Live(f["idle"]) != nil {
			t.Fatal("idle worker still running after the timeout")
		}
		if e := <-sub.C; e.Type != EvExit || fieldString(e.Raw, "reason") != "idle" {
			t.Errorf("got %s %s, want piweb_exit idle", e.Type, e.Raw)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if (*procs)[1].closed.Load() || s.Live(f["busy"]) != busy {
			t.Error("busy worker was stopped")
		}
		_ = idle
	})
}

func TestSupervisorCapEvictsLongestIdle(t *testing.T) {
	f := sessionFiles(t, "a", "b", "c", "d")
	synctest.Test(t, func(t *testing.T) {
		s, procs, _ := fakeSupervisor(Config{MaxLive: 2}, time.Second)
		defer s.Close(context.Background())
		ctx := context.Background()
		s.Worker(ctx, f["a"])
		time.Sleep(time.Minute)
		s.Worker(ctx, f["b"])
		time.Sleep(time.Minute)
		s.Worker(ctx, f["a"]) // a is now the most recently used
		if _, err := s.Worker(ctx, f["c"]); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if s.Live(f["b"]) != nil || !(*procs)[1].closed.Load() {
			t.Error("b (longest idle) not evicted")
		}
		if s.Live(f["a"]) == nil || s.LiveCount() != 2 {
			t.Errorf("a evicted or %d live", s.LiveCount())
		}
		// All busy: a start is refused rather than stopping a busy worker.
		for _, f := range []string{f["a"], f["c"]} {
			s.Live(f).onEvent(Event{Type: EvAgentStart, Raw: []byte(`{"type":"agent_start"}`)})
		}
		if _, err := s.Worker(ctx, f["d"]); err != ErrAtCapacity {
			t.Errorf("err = %v, want ErrAtCapacity", err)
		}
	})
}

func TestSupervisorCrashRestart(t *testing.T) {
	f := sessionFiles(t, "a")
	synctest.Test(t, func(t *testing.T) {
		s, procs, _ := fakeSupervisor(Config{}, time.Second)
		defer s.Close(context.Background())
		ctx := context.Background()
		w1, _ := s.Worker(ctx, f["a"])
		hub := s.Hub(f["a"])
		_, sub, _ := hub.Subscribe(hub.Last())
		(*procs)[0].crash(&ExitError{Status: 1, Stderr: "TypeError: boom\n"})
		e := <-sub.C
		if e.Type != EvExit || fieldString(e.Raw, "reason") != "crashed" || fieldString(e.Raw, "stderr") != "TypeError: boom\n" {
			t.Fatalf("got %s", e.Raw)
		}
		synctest.Wait()
		w2, err := s.Worker(ctx, f["a"])
		if err != nil || w2 == w1 || len(*procs) != 2 {
			t.Fatalf("restart: %v, same=%v, starts=%d", err, w2 == w1, len(*procs))
		}
		if e := <-sub.C; e.Type != EvState || e.Seq <= 1 {
			t.Errorf("after restart got %s seq %d", e.Type, e.Seq)
		}
	})
}

func TestSupervisorSettleTimer(t *testing.T) {
	f := sessionFiles(t, "a")
	synctest.Test(t, func(t *testing.T) {
		s, _, _ := fakeSupervisor(Config{}, time.Second)
		defer s.Close(context.Background())
		w, _ := s.Worker(context.Background(), f["a"])
		_, sub, _ := w.Hub().Subscribe(w.Hub().Last())
		w.onEvent(Event{Type: EvAgentStart, Raw: []byte(`{"type":"agent_start"}`)})
		w.onEvent(Event{Type: EvAgentEnd, Raw: []byte(`{"type":"agent_end","messages":[]}`)})
		start := time.Now()
		err := w.waitNotBusy(context.Background())
		if err != nil || time.Since(start) != DefaultSettle {
			t.Errorf("waitNotBusy: %v after %v", err, time.Since(start))
		}
		synctest.Wait()
		var phases []string
		for len(sub.C) > 0 {
			e := <-sub.C
			if e.Type == EvState {
				phases = append(phases, fieldString(e.Raw, "phase"))
			}
		}
		if got := len(phases); got != 3 || phases[2] != "idle" {
			t.Errorf("phases %v, want streaming settling idle", phases)
		}
	})
}

// TestLiveCapParallelStarts is issue 17.3: 30 new sessions started at once
// against a cap of 3 start at most 3 pi processes; the others are refused
// with ErrAtCapacity (the server's 429) instead of each starting a pi.
func TestLiveCapParallelStarts(t *testing.T) {
	r := newRig(t)
	const limit, starts = 3, 30
	s := r.supervisor(func(c *Config) { c.MaxLive = limit })
	ctx := ctxT(t)
	var (
		wg              sync.WaitGroup
		mu              sync.Mutex
		started, capped int
		other           []error
	)
	peak := 0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the most pi processes alive at once
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if n := len(pitest.ChildProcesses(t, os.Getpid())); n > peak {
				peak = n
			}
		}
	}()
	for range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Busy at once, as a created session is: never a victim.
			w, err := s.StartNew(ctx, r.work)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				started++
				w.onEvent(Event{Type: EvAgentStart, Raw: []byte(`{"type":"agent_start"}`)})
			case errors.Is(err, ErrAtCapacity):
				capped++
			default:
				other = append(other, err)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	if started+capped != starts || len(other) > 0 {
		t.Fatalf("%d started, %d refused at the cap, other errors: %v", started, capped, other)
	}
	if started == 0 || started > limit || s.LiveCount() > limit {
		t.Errorf("%d started, %d live, cap %d", started, s.LiveCount(), limit)
	}
	if peak > limit {
		t.Errorf("%d pi processes at once, cap %d", peak, limit)
	}
}
