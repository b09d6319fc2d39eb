package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"piweb/internal/broker"
	"piweb/internal/errs"
	"piweb/internal/opt"
	"sync"
	"time"
)

// Supervisor defaults.
const (
	DefaultIdleTimeout = 10 * time.Minute
	DefaultMaxLive     = 8
	DefaultSpareDelay  = 3 * time.Second
	DefaultOutsidePoll = 2 * time.Second
)

// ErrAtCapacity is a start refused because MaxLive workers are live and
// all of them are busy.
var ErrAtCapacity = errs.New(errs.Throttled, "too many agents are running; wait for one to finish or stop one", "too many live pi workers, all busy")

// ErrClosed is any use of a closed Supervisor.
var ErrClosed = errors.New("agent supervisor closed")

// Config configures a Supervisor.
type Config struct {
	// Base is the template for every pi process; SessionFile and OnEvent
	// are set per worker. Model and Thinking apply to new sessions only
	// (StartNew).
	Base Options
	// IdleTimeout stops a worker that has not been used for this long and
	// is not busy (DefaultIdleTimeout when zero).
	IdleTimeout time.Duration
	// MaxLive caps live workers (DefaultMaxLive when zero); starting one
	// more stops the longest-idle non-busy worker first.
	MaxLive int
	// KillGrace is the SIGTERM→SIGKILL delay (DefaultKillGrace when zero).
	KillGrace time.Duration
	// UITimeout cancels unanswered extension dialogs (DefaultUITimeout).
	UITimeout time.Duration
	// AbortCompactionWait bounds the wait for pi to end a compaction it
	// was asked to abort before the worker is killed instead
	// (DefaultAbortCompactionWait when zero). An option, not a global, so
	// tests can shorten it and still run in parallel.
	AbortCompactionWait time.Duration
	// Spare keeps one pre-started pi ready to be switched to a session,
	// hiding pi's ~1.5 s start-up from the first message.
	Spare bool
	// OutsidePoll is how often live workers' files are checked for
	// appends by other processes (DefaultOutsidePoll when zero). Negative
	// turns the poll off: the caller hands every append to FileGrew (serve
	// does, from the index's one read of new lines).
	OutsidePoll time.Duration
	// SpareDelay is the pause before starting the next spare after one was
	// taken (DefaultSpareDelay when zero).
	SpareDelay time.Duration
	// ModelsFresh is how long Service.Models answers its last list
	// without asking pi again (DefaultModelsFresh when zero); an older
	// list is still answered at once while one pi refreshes it behind.
	ModelsFresh time.Duration
	// Offline performs writes for sessions without a live worker
	// (SessionFiles when nil).
	Offline OfflineWriter
	// Events is the broker the workers publish to, one topic per session
	// file (Key), and WorkersTopic; nil makes one (SharedBroker). The
	// server streams from the same broker, so each event is numbered and
	// kept once.
	Events *broker.Broker[Event]
	// BridgeDir is where the bridge extension is written and loaded from
	// (-e) for tree navigation and labels; "" disables it. The product
	// passes DefaultBridgeDir().
	BridgeDir string
}

// OfflineWriter writes to a session file directly, for sessions with no
// live worker (a live pi keeps its own leaf in memory, so writes must then
// go through it). internal/sessionstore provides the implementation.
type OfflineWriter interface {
	SetSessionName(file, name string) error
	SetLabel(file, entryID, label string) error
}

// Supervisor runs at most one pi worker per session file, starting them on
// demand, stopping idle ones and restarting crashed ones on next use.
type Supervisor struct {
	cfg    Config
	launch func(ctx context.Context, w *Worker) error // starts pi for w

	mu      sync.Mutex
	entries map[string]*entry
	events  *broker.Broker[Event] // one topic per session key
	// reserved counts new sessions whose pi is starting: their slots are
	// taken under mu before pi starts, so parallel starts honour MaxLive.
	reserved int
	// approved are the session keys whose workers start with --approve
	// (Approve); kept while entries come and go.
	approved map[string]bool
	closed   bool
	spare    *spare
	quit     chan struct{}
	wg       sync.WaitGroup
}

// entry is one session: its Hub outlives workers so Seq and replay survive
// restarts.
type entry struct {
	hub      *Hub
	w        *Worker
	starting *startOp
}

type startOp struct {
	done chan struct{}
	w    *Worker
	err  error
}

// NewSupervisor writes the bridge extension and starts the idle reaper
// (and the spare, if configured).
func NewSupervisor(cfg Config) (*Supervisor, error) {
	if cfg.BridgeDir != "" {
		path, err := WriteBridge(cfg.BridgeDir)
		if err != nil {
			return nil, err
		}
		cfg.Base.Extensions = append(append([]string(nil), cfg.Base.Extensions...), path)
	}
	opt.Positive(&cfg.IdleTimeout, DefaultIdleTimeout)
	if cfg.Offline == nil {
		cfg.Offline = SessionFiles{}
	}
	opt.Positive(&cfg.MaxLive, DefaultMaxLive)
	if cfg.OutsidePoll == 0 {
		cfg.OutsidePoll = DefaultOutsidePoll
	}
	if cfg.Events == nil {
		cfg.Events = SharedBroker(0, nil)
	}
	opt.Positive(&cfg.SpareDelay, DefaultSpareDelay)
	s := &Supervisor{cfg: cfg, entries: map[string]*entry{}, approved: map[string]bool{}, events: cfg.Events, quit: make(chan struct{})}
	s.launch = s.launchPi
	s.wg.Add(1)
	go s.reaper()
	if cfg.Spare {
		s.refillSpare()
	}
	return s, nil
}

// Key normalizes a session file path into the supervisor's key.
func Key(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.Clean(file)
	}
	return abs
}

func (s *Supervisor) entry(key string) *entry {
	e := s.entries[key]
	if e == nil {
		e = &entry{hub: hubOn(s.events, key)}
		s.entries[key] = e
	}
	return e
}

// Hub returns the event hub of a session, live or not; subscribing to it
// before the worker starts sees the start.
func (s *Supervisor) Hub(file string) *Hub {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entry(Key(file)).hub
}

// Subscribe subscribes to a session's events after Seq after (see
// Hub.Subscribe). It is the same as Hub(file).Subscribe: the broker
// subscribes atomically with its collection of idle topics, so neither can
// race with the pruning of unused sessions.
func (s *Supervisor) Subscribe(file string, after uint64) ([]Event, *Subscription, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entry(Key(file)).hub.Subscribe(after)
}

// Live returns the session's worker if one runs (never starts one).
func (s *Supervisor) Live(file string) *Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[Key(file)]; e != nil {
		return e.w
	}
	return nil
}

// FileGrew hands the live worker of file, if any, the complete lines
// appended to it from offset from, as another reader read them (see
// Worker.FileGrew).
func (s *Supervisor) FileGrew(file string, from int64, lines []byte) {
	if w := s.Live(file); w != nil {
		w.FileGrew(from, lines)
	}
}

// LiveCount counts live workers.
func (s *Supervisor) LiveCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.entries {
		if e.w != nil {
			n++
		}
	}
	return n
}

// Worker returns the session's worker, starting pi if needed. Concurrent
// callers for one session share a single start; the start itself is not
// cancelled by ctx (others may wait for it), only the wait is.
func (s *Supervisor) Worker(ctx context.Context, file string) (*Worker, error) {
	key := Key(file)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	e := s.entry(key)
	if w := e.w; w != nil && !w.exited() {
		s.mu.Unlock()
		w.touch()
		return w, nil
	}
	e.w = nil // exited; watch has not run yet
	op := e.starting
	if op == nil {
		// pi would silently start an empty session at a missing path.
		if _, err := os.Stat(key); err != nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("open session: %w", err)
		}
		if err := s.makeRoom(); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		op = &startOp{done: make(chan struct{})}
		e.starting = op
		go s.start(key, e, op)
	}
	s.mu.Unlock()
	select {
	case <-op.done:
		return op.w, op.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (w *Worker) exited() bool {
	select {
	case <-w.proc.Done():
		return true
	default:
		return false
	}
}

func (w *Worker) touch() {
	w.mu.Lock()
	w.lastUse = time.Now()
	w.mu.Unlock()
}

// start launches pi for key and publishes a failure to the session's hub.
func (s *Supervisor) start(key string, e *entry, op *startOp) {
	w := newWorker(key, e.hub, s.cfg.UITimeout)
	w.abortWait = s.cfg.AbortCompactionWait
	w.onRekey = s.rekey
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	err := s.launch(ctx, w)
	cancel()
	s.mu.Lock()
	e.starting = nil
	if err == nil && s.closed {
		err = ErrClosed
		go w.stop(context.Background(), "shutdown", s.cfg.KillGrace)
	}
	if err == nil {
		e.w = w
		s.wg.Add(1)
		go s.watch(w)
	}
	s.mu.Unlock()
	if err != nil {
		e.hub.Publish(NewEvent(EvExit, exitNotice(err, "start failed")))
	} else {
		e.hub.Publish(NewEvent(EvState, w.Status()))
	}
	op.w, op.err = w, err
	if err != nil {
		op.w = nil
	}
	close(op.done)
}

// launchPi starts a real pi for w, from the spare when there is one.
func (s *Supervisor) launchPi(ctx context.Context, w *Worker) error {
	approve := s.Approved(w.key)
	var sp *spare
	if !approve { // a spare runs without --approve
		sp = s.takeSpare()
	}
	if sp != nil {
		err := s.adoptSpare(ctx, sp, w)
		// Node's start-up is CPU-heavy: refill once the first answer is
		// likely over, not while it streams.
		time.AfterFunc(s.cfg.SpareDelay, s.refillSpare)
		if err == nil {
			return nil
		}
		var cg *CwdGoneError
		if errors.As(err, &cg) {
			return err
		}
		// Fall back to a cold start for anything else.
	}
	o := s.cfg.resumeOptions()
	o.SessionFile = w.key
	o.OnEvent = w.onEvent
	approveArgs(&o, approve)
	c, st, err := Start(ctx, o)
	if err != nil {
		return err
	}
	w.attach(c, st)
	return nil
}

// resumeOptions are Base without Model and Thinking: a resumed session
// keeps the model and level pi restores from it. pi applies CLI overrides
// on every runtime it creates (switch_session too), and a thinking override
// appends a thinking_level_change to the user's file.
func (c *Config) resumeOptions() Options {
	o := c.Base
	o.Model, o.Thinking = "", ""
	return o
}

// attach binds a started client to w.
func (w *Worker) attach(c *Client, st State) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.client, w.proc, w.state = c, c, st
	w.m.Settles = c.Has(VersionSettled)
	w.m.Reset(st)
	w.lastUse = time.Now()
	w.tracker = newFileTracker(st.SessionFile, w.ownGrace)
}

// makeRoom stops the longest-idle non-busy worker when at the cap. s.mu is
// held.
func (s *Supervisor) makeRoom() error {
	live := s.reserved
	var victim *entry
	var oldest time.Time
	now := time.Now()
	for _, e := range s.entries {
		if e.starting != nil {
			live++
		}
		if e.w == nil {
			continue
		}
		live++
		if e.w.busy(now) {
			continue
		}
		if t := e.w.idleSince(); victim == nil || t.Before(oldest) {
			victim, oldest = e, t
		}
	}
	if live < s.cfg.MaxLive {
		return nil
	}
	if victim == nil {
		return ErrAtCapacity
	}
	w := victim.w
	victim.w = nil
	go w.stop(context.Background(), "evicted", s.cfg.KillGrace)
	return nil
}

// watch waits for a worker's pi to exit and tells its subscribers why.
func (s *Supervisor) watch(w *Worker) {
	defer s.wg.Done()
	<-w.proc.Done()
	w.dispose()
	s.mu.Lock()
	key := w.Key()
	if e := s.entries[key]; e != nil && e.w == w {
		e.w = nil
	}
	s.mu.Unlock()
	reason := w.stopReason()
	if reason == "" {
		reason = "crashed"
	}
	var err error
	if x := w.proc.Exit(); x != nil {
		err = x
	}
	w.Hub().Publish(NewEvent(EvExit, exitNotice(err, reason)))
}

// Stop stops the session's worker, if any.
func (s *Supervisor) Stop(ctx context.Context, file string) {
	s.mu.Lock()
	var w *Worker
	if e := s.entries[Key(file)]; e != nil {
		w, e.w = e.w, nil
	}
	s.mu.Unlock()
	if w != nil {
		w.stop(ctx, "stopped", s.cfg.KillGrace)
	}
}

// rekey moves a worker whose pi switched session files (fork, clone, new,
// switch) to the new key, keeping one worker per file. If another worker
// already serves the new file, the moving one is stopped.
func (s *Supervisor) rekey(w *Worker, old, new string) {
	s.mu.Lock()
	if e := s.entries[old]; e != nil && e.w == w {
		e.w = nil
	}
	ne := s.entry(new)
	if s.approved[old] { // the same pi, started with --approve, now writes new
		s.approved[new] = true
	}
	clash := ne.w != nil && ne.w != w
	if !clash {
		ne.w = w
	}
	oldHub := s.entry(old).hub
	s.mu.Unlock()
	oldHub.Publish(NewEvent(EvSessionChanged, map[string]string{"from": old, "to": new}))
	if clash {
		go w.stop(context.Background(), "duplicate", s.cfg.KillGrace)
		return
	}
	w.mu.Lock()
	w.key, w.hub = new, ne.hub
	w.mu.Unlock()
	ne.hub.Publish(NewEvent(EvSessionChanged, map[string]string{"from": old, "to": new}))
}

// Close stops every worker (SIGTERM, then SIGKILL after KillGrace or when
// ctx ends) and the spare, and waits for them.
func (s *Supervisor) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.quit)
	var ws []*Worker
	for _, e := range s.entries {
		if e.w != nil {
			ws = append(ws, e.w)
			e.w = nil
		}
	}
	sp := s.spare
	s.spare = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.stop(ctx, "shutdown", s.cfg.KillGrace)
		}()
	}
	if sp != nil {
		sp.discard(ctx, s.cfg.KillGrace)
	}
	wg.Wait()
	s.wg.Wait()
	return nil
}

// SpareReady reports whether a started spare is waiting (for tests and
// benchmarks that must not time its start-up).
func (s *Supervisor) SpareReady() bool {
	s.mu.Lock()
	sp := s.spare
	s.mu.Unlock()
	if sp == nil {
		return false
	}
	select {
	case <-sp.ready:
		return sp.err == nil
	default:
		return false
	}
}
