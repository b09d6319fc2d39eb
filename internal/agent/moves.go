package agent

import (
	"context"
	"crypto/rand"
	"fmt"
)

// Fork, Clone, NewSession and SwitchSession move pi to another session
// file and emit no events (pi-rpc.md §4.6). The Worker re-reads get_state,
// moves itself to the new file's key in the Supervisor (one worker per
// file) and announces piweb_session_changed on both hubs.

// Fork branches into a new file before the user message entryID.
func (w *Worker) Fork(ctx context.Context, entryID string) (ForkResult, error) {
	var r ForkResult
	err := w.move(ctx, func(c *Client) (err error) { r, err = c.Fork(ctx, entryID); return err })
	return r, err
}

// Clone copies the current branch into a new file.
func (w *Worker) Clone(ctx context.Context) error {
	return w.move(ctx, func(c *Client) error { _, err := c.Clone(ctx); return err })
}

// NewSession starts an empty session in the same cwd.
func (w *Worker) NewSession(ctx context.Context, parent string) error {
	return w.move(ctx, func(c *Client) error { _, err := c.NewSession(ctx, parent); return err })
}

// SwitchSession points the worker at another existing file.
func (w *Worker) SwitchSession(ctx context.Context, file string) error {
	return w.move(ctx, func(c *Client) error { _, err := c.SwitchSession(ctx, Key(file)); return err })
}

// Reload re-opens the worker's own file, adopting entries another process
// appended (the "reload" answer to ErrStale).
func (w *Worker) Reload(ctx context.Context) error {
	return w.SwitchSession(ctx, w.Key())
}

func (w *Worker) move(ctx context.Context, f func(*Client) error) error {
	if err := w.waitNotBusy(ctx); err != nil {
		return err
	}
	w.begin()
	defer w.end()
	if err := f(w.client); err != nil {
		return err
	}
	st, err := w.client.GetState(ctx)
	if err != nil {
		return fmt.Errorf("state after session change: %w", err)
	}
	w.mu.Lock()
	old := w.key
	w.state = st
	w.m.Reset(st)
	w.tracker = newFileTracker(st.SessionFile, w.ownGrace)
	rekey := w.onRekey
	w.mu.Unlock()
	if st.SessionFile != "" && st.SessionFile != old && rekey != nil {
		rekey(w, old, st.SessionFile)
	}
	return nil
}

// StartNew starts pi on a new session in cwd (always a cold start: a
// spare's new_session would use the spare's cwd) and returns its worker,
// keyed by the file pi will write on the first answer.
func (s *Supervisor) StartNew(ctx context.Context, cwd string) (*Worker, error) {
	return s.StartNewWith(ctx, cwd, NewSession{})
}

// NewSession holds the choices a user makes for a new session. They are
// passed to pi on its command line (--model, --thinking, --tools), which
// applies them to this session only; the RPC set_* commands would also make
// them the user's defaults in settings.json.
type NewSession struct {
	Model    string   // "provider/id"; empty for pi's default
	Thinking string   // a thinking level; empty for pi's default
	Tools    []string // nil for pi's default tools, empty for none
	// Approve starts pi with --approve: it loads the folder's project
	// resources for this session only (the user's choice; see Approve).
	Approve bool
}

// StartNewWith is StartNew with the session's model, thinking level and
// tools.
func (s *Supervisor) StartNewWith(ctx context.Context, cwd string, n NewSession) (*Worker, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	err := s.makeRoom()
	if err == nil {
		s.reserved++ // the slot is ours until pi is registered or failed
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	registered := false
	defer func() {
		if !registered {
			s.mu.Lock()
			s.reserved--
			s.mu.Unlock()
		}
	}()
	// Until pi names its file the worker publishes on a topic of its own
	// in the broker; then on the file's topic, where subscribers look.
	hub := hubOn(s.events, "new/"+rand.Text())
	w := newWorker("", hub, s.cfg.UITimeout)
	w.abortWait = s.cfg.AbortCompactionWait
	w.onRekey = s.rekey
	o := s.cfg.Base
	o.Cwd, o.SessionFile, o.OnEvent = cwd, "", w.onEvent
	if n.Model != "" {
		o.Model = n.Model
	}
	if n.Thinking != "" {
		o.Thinking = n.Thinking
	}
	if n.Tools != nil {
		o.Tools = n.Tools
	}
	if n.Approve && o.Pi != nil && !o.Pi.Version.AtLeast(VersionTrust) {
		return nil, ErrNoTrust
	}
	approveArgs(&o, n.Approve)
	c, st, err := Start(ctx, o)
	if err != nil {
		return nil, err
	}
	w.attach(c, st)
	w.key = Key(st.SessionFile)
	s.mu.Lock()
	s.reserved--
	registered = true
	if s.closed {
		s.mu.Unlock()
		w.stop(context.Background(), "shutdown", s.cfg.KillGrace)
		return nil, ErrClosed
	}
	e := s.entry(w.key)
	e.w = w
	w.mu.Lock()
	w.hub = e.hub
	w.mu.Unlock()
	hub.Close()
	if n.Approve {
		s.approved[w.key] = true
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go s.watch(w)
	e.hub.Publish(NewEvent(EvState, w.Status()))
	return w, nil
}
