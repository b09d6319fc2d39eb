package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	"piweb/internal/errs"
	"piweb/internal/opt"
)

// process is the part of a pi process the supervisor manages; *Client
// implements it (tests of the supervisor's timing use a fake).
type process interface {
	Done() <-chan struct{}
	Exit() *ExitError
	Close(ctx context.Context, grace time.Duration)
}

// ErrBusy is returned for a plain prompt while pi is streaming, compacting
// or waiting to retry; send it as Steer or FollowUp instead.
var ErrBusy = errs.New(errs.Busy, "the agent is busy; steer or follow up instead", "agent is busy")

// DefaultUITimeout is how long an extension dialog may stay unanswered
// before piweb cancels it, so that a closed browser tab cannot wedge pi.
const DefaultUITimeout = 5 * time.Minute

// Worker is a live pi process serving one session file. Its events go to
// the session's Hub, together with piweb's own notices (state changes,
// exit, dialog timeouts). Commands go through Client or the Worker's
// methods, which also keep the idle clock and the busy state right.
type Worker struct {
	client    *Client // nil in supervisor timing tests
	proc      process
	uiTimeout time.Duration
	abortWait time.Duration // Config.AbortCompactionWait
	// ownGrace is the fileTracker's grace for pi's entry_appended.
	ownGrace time.Duration

	mu       sync.Mutex
	key      string // session file
	hub      *Hub
	m        Machine
	phase    Phase
	state    State
	lastUse  time.Time
	inflight int
	dialogs  map[string]*time.Timer
	settle   *time.Timer
	reason   string // why piweb stopped it; "" means it crashed
	onRekey  func(w *Worker, old, new string)
	tracker  *fileTracker
	trust    int // bridge operations under way whose writes are pi's

	bridge bridge
}

func newWorker(key string, hub *Hub, uiTimeout time.Duration) *Worker {
	opt.Positive(&uiTimeout, DefaultUITimeout)
	return &Worker{key: key, hub: hub, uiTimeout: uiTimeout, phase: PhaseIdle, ownGrace: DefaultOwnGrace,
		lastUse: time.Now(), dialogs: map[string]*time.Timer{}}
}

// Client is the RPC client, for commands without a Worker method.
func (w *Worker) Client() *Client { return w.client }

// Key is the session file the worker serves now (fork, clone, new and
// switch move it to another file).
func (w *Worker) Key() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.key
}

// Hub is where the worker's events go.
func (w *Worker) Hub() *Hub {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hub
}

// Status is the state machine's view now.
func (w *Worker) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m.Status(time.Now())
}

// State is pi's last get_state answer (from start or a session change).
func (w *Worker) State() State {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state
}

// busy reports whether the worker must not be stopped for idleness: pi
// works, a command is running, or a dialog waits for the user.
func (w *Worker) busy(now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m.Status(now).Busy() || w.inflight > 0 || len(w.dialogs) > 0
}

func (w *Worker) idleSince() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lastUse
}

// onEvent is the Client's OnEvent: update the machine, publish, and arm
// the timers the event implies. It runs on pi's stdout reader.
func (w *Worker) onEvent(e Event) {
	if w.bridge.intercept(e) {
		return
	}
	if e.Type == EvMessageUpdate {
		e.Raw = normalizeUpdate(e.Raw) // pi 1.x's delta-only shape
	}
	var dialog *UIRequest
	switch e.Type {
	case EvExtensionUIRequest:
		dialog = decodeDialog(e)
	case EvEntryAppended:
		if t := w.fileTracker(); t != nil {
			t.announce(fieldString(e.Field("entry"), "id"))
		}
	case EvAgentEnd, EvCompactionEnd:
		// pi has written this phase's entries; take them in as ours before
		// the phase ends, so that from now on any new line is foreign.
		w.absorbOwn()
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := w.m.Apply(e, now)
	if e.Type == EvAgentSettled && w.settle != nil {
		w.settle.Stop() // settled before its fallback deadline
		w.settle = nil
	}
	w.lastUse = now
	if dialog != nil {
		w.trackDialog(dialog) // before subscribers can answer it
	}
	st, publish := w.statusChange(now, changed && e.Type == EvQueueUpdate)
	// Published under w.mu so that state notices from the settle timer
	// and from pi's events reach subscribers in the order they were made.
	w.hub.Publish(e)
	if publish {
		w.hub.Publish(NewEvent(EvState, st))
	}
}

// statusChange computes the status and whether it should be announced,
// arming the settle timer when needed. w.mu must be held.
func (w *Worker) statusChange(now time.Time, force bool) (Status, bool) {
	st := w.m.Status(now)
	if st.Phase == PhaseSettling && w.settle == nil {
		w.settle = time.AfterFunc(w.m.SettleDeadline().Sub(now), w.settled)
	}
	if st.Phase == w.phase && !force {
		return st, false
	}
	w.phase = st.Phase
	return st, true
}

// settled re-evaluates the phase when a Settling window ends.
func (w *Worker) settled() {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle = nil
	if st, publish := w.statusChange(now, false); publish {
		w.hub.Publish(NewEvent(EvState, st))
	}
}

// trusting reports whether a bridge operation (tree navigation, which
// branches and may write a summary) is under way: its writes are taken in
// as pi's when it ends, and scans meanwhile would judge them foreign.
func (w *Worker) trusting() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.trust > 0
}

func (w *Worker) beginTrust() {
	w.mu.Lock()
	w.trust++
	w.mu.Unlock()
}

func (w *Worker) endTrust() {
	w.mu.Lock()
	w.trust--
	w.mu.Unlock()
}

// begin and end bracket a command so the worker counts as busy meanwhile.
func (w *Worker) begin() {
	w.mu.Lock()
	w.inflight++
	w.lastUse = time.Now()
	w.mu.Unlock()
}

func (w *Worker) end() {
	w.absorbOwn() // while still counted busy
	w.mu.Lock()
	w.inflight--
	w.lastUse = time.Now()
	w.mu.Unlock()
}

// Do runs f with the client while the worker counts as in use.
func (w *Worker) Do(f func(*Client) error) error {
	w.begin()
	defer w.end()
	return f(w.client)
}

// PromptOptions qualify a Prompt.
type PromptOptions struct {
	Images []Image
	// Behavior is "", Steer or FollowUp. With "", a busy worker refuses
	// with ErrBusy (after waiting out a Settling window).
	Behavior string
	// Force sends even though the session file changed outside piweb
	// (ErrStale otherwise); the caller has chosen to continue from pi's
	// in-memory leaf.
	Force bool
	// ExpectLeaf is the leaf of the file as the user saw it. When the file
	// changed outside piweb and its leaf is still ExpectLeaf, the user has
	// seen the file as it is now: the worker reloads it (pi continues with
	// the outside entries in its context) instead of refusing with
	// ErrStale.
	ExpectLeaf string
}

// Prompt sends a user message.
func (w *Worker) Prompt(ctx context.Context, text string, o PromptOptions) error {
	_, err := w.Submit(ctx, text, o)
	return err
}

// Submit is Prompt returning what became of the message.
func (w *Worker) Submit(ctx context.Context, text string, o PromptOptions) (Disposition, error) {
	if o.Behavior == "" {
		if err := w.waitNotBusy(ctx); err != nil {
			return "", err
		}
	}
	if err := w.checkStale(ctx, o); err != nil {
		return "", err
	}
	var d Disposition
	err := w.Do(func(c *Client) (err error) { d, err = c.Submit(ctx, text, o.Images, o.Behavior); return err })
	return d, err
}

// waitNotBusy waits out a Settling window, then fails with ErrBusy if pi
// still works.
func (w *Worker) waitNotBusy(ctx context.Context) error {
	for {
		w.mu.Lock()
		now := time.Now()
		st := w.m.Status(now)
		wait := w.m.SettleDeadline().Sub(now)
		w.mu.Unlock()
		switch st.Phase {
		case PhaseIdle:
			return nil
		case PhaseSettling:
			// agent_settled may end the window before its deadline.
			t := time.NewTimer(min(wait, 20*time.Millisecond))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		default:
			return fmt.Errorf("%w (%s)", ErrBusy, st.Phase)
		}
	}
}

func decodeDialog(e Event) *UIRequest {
	var r UIRequest
	if DecodeEvent(e, &r) != nil || !r.IsDialog() {
		return nil
	}
	return &r
}

// trackDialog starts the timeout of a dialog request: piweb's, or the
// extension's own when shorter. pi answers an extension's timeout by
// itself without a word on RPC, so piweb must expire the dialog at the
// same moment to tell the browsers it is gone. w.mu is held.
func (w *Worker) trackDialog(r *UIRequest) {
	id := r.ID
	d := w.uiTimeout
	if own := time.Duration(r.Timeout) * time.Millisecond; own > 0 && own < d {
		d = own
	}
	w.dialogs[id] = time.AfterFunc(d, func() { w.expireDialog(id) })
}

func (w *Worker) expireDialog(id string) {
	if !w.takeDialog(id) {
		return
	}
	_ = w.client.AnswerUI(id, UIAnswer{Cancelled: true})
	w.Hub().Publish(NewEvent(EvExtensionUITimeout, map[string]string{"id": id}))
}

func (w *Worker) takeDialog(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.dialogs[id]
	if ok {
		t.Stop()
		delete(w.dialogs, id)
	}
	w.lastUse = time.Now()
	return ok
}

// ErrNoDialog is answering a dialog that is not pending (answered from
// another tab, timed out, or never asked).
var ErrNoDialog = errs.New(errs.NotFound, "no such pending dialog (answered elsewhere or timed out)", "no such pending dialog")

// AnswerUI answers a pending extension dialog and tells every subscriber
// it is gone.
func (w *Worker) AnswerUI(id string, a UIAnswer) error {
	if !w.takeDialog(id) {
		return ErrNoDialog
	}
	if err := w.client.AnswerUI(id, a); err != nil {
		return err
	}
	w.Hub().Publish(NewEvent(EvUIAnswered, map[string]string{"id": id}))
	return nil
}

// stop ends pi for the given reason (idle, evicted, shutdown).
func (w *Worker) stop(ctx context.Context, reason string, grace time.Duration) {
	w.mu.Lock()
	if w.reason == "" {
		w.reason = reason
	}
	w.mu.Unlock()
	w.proc.Close(ctx, grace)
}

func (w *Worker) stopReason() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason
}

// dispose releases timers once pi has exited.
func (w *Worker) dispose() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, t := range w.dialogs {
		t.Stop()
		delete(w.dialogs, id)
	}
	if w.settle != nil {
		w.settle.Stop()
	}
}
