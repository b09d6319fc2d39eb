// Package pilogin runs pi's own account sign-in (`pi auth login <provider>
// --no-browser`, pi's /login outside its TUI) for the Settings page. pi
// refuses to sign in without a terminal, so the command runs on a real PTY
// (internal/terminal) under the owner "signin/<provider>": one sign-in at
// a time per provider. What pi prints is kept as text; the page gets the
// sign-in page pi asks the user to open (http and https URLs only), the
// question pi waits on, and pi's result. Answers (the pasted code) go to
// pi's terminal and are masked in the text handed out; nothing of them,
// nor of pi's output, is logged. A sign-in is killed when cancelled, after
// the timeout, and when the Manager closes (piweb stops). No HTTP here.
package pilogin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/opt"
	"piweb/internal/terminal"
)

// DefaultTimeout is how long a sign-in may run (Options.Timeout).
const DefaultTimeout = 10 * time.Minute

// Options configures a Manager.
type Options struct {
	// Command is pi started with args, as piweb's agents run it
	// (agent.Service.PiCommand): same executable, Node, agent dir and
	// environment.
	Command func(ctx context.Context, args ...string) (*exec.Cmd, error)
	// Timeout ends a sign-in still running after it (0: DefaultTimeout).
	Timeout time.Duration
	// OnSignedIn is called, outside the Manager's lock, after pi signed in
	// to a provider (pi's auth.json changed).
	OnSignedIn func(provider string)
}

// Results of a finished sign-in (State.Result).
const (
	SignedIn  = "signed_in"
	Failed    = "failed"
	Cancelled = "cancelled"
	TimedOut  = "timed_out"
)

// Errors of Start, Answer and Cancel.
var (
	ErrRunning = errs.New(errs.Busy, "a sign-in to this provider is already running; cancel it first", "pilogin: a sign-in to this provider is already running")
	ErrNoRun   = errs.New(errs.NotFound, "no sign-in to this provider is running", "pilogin: no sign-in to this provider is running")
)

// State is one provider's sign-in as the page shows it (apitype.SignInState,
// where the API's shapes are defined).
type State = apitype.SignInState

// Manager runs the sign-ins. Its methods are safe for concurrent use.
type Manager struct {
	opts  Options
	terms *terminal.Manager

	mu      sync.Mutex
	runs    map[string]*run
	seq     uint64
	changed chan struct{} // closed and replaced on every change
	closed  bool
}

// run is one sign-in; its fields are guarded by Manager.mu.
type run struct {
	provider string
	term     *terminal.Term
	screen   screen
	answers  []string
	seq      uint64
	result   string // set when it ended, or why it is being ended
	ended    bool
	finished chan struct{} // closed once ended is recorded
	timer    *time.Timer
}

// New returns a Manager with no sign-in running.
func New(opts Options) *Manager {
	opt.Positive(&opts.Timeout, DefaultTimeout)
	// One sign-in runs per provider (Start checks); the terminal of one
	// that just ended may still be counted for a moment, hence 2.
	terms := terminal.New(terminal.Options{PerOwner: 2, Total: 16, Idle: opts.Timeout + time.Minute, Scrollback: 64 << 10})
	return &Manager{opts: opts, terms: terms, runs: map[string]*run{}, changed: make(chan struct{})}
}

// bump records a change (m.mu held) and wakes the waiters.
func (m *Manager) bump(r *run) {
	m.seq++
	r.seq = m.seq
	close(m.changed)
	m.changed = make(chan struct{})
}

// Start runs `pi auth login provider --no-browser` on a PTY, replacing a
// finished sign-in's state. It fails with ErrRunning while one runs for
// the provider, and with the Command's error when pi cannot run.
func (m *Manager) Start(ctx context.Context, provider string) (State, error) {
	m.mu.Lock()
	if r := m.runs[provider]; r != nil && !r.ended {
		m.mu.Unlock()
		return State{}, ErrRunning
	}
	m.mu.Unlock()
	cmd, err := m.opts.Command(ctx, "auth", "login", provider, "--no-browser")
	if err != nil {
		return State{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return State{}, terminal.ErrClosed
	}
	if r := m.runs[provider]; r != nil && !r.ended {
		return State{}, ErrRunning
	}
	// Wide, so that pi's long URLs and prompts stay on one line.
	term, err := m.terms.Run("signin/"+provider, cmd, 400, 40)
	if err != nil {
		return State{}, err
	}
	r := &run{provider: provider, term: term, finished: make(chan struct{})}
	r.timer = time.AfterFunc(m.opts.Timeout, func() { m.end(r, TimedOut) })
	m.runs[provider] = r
	m.bump(r)
	go m.follow(r)
	return r.state(), nil
}

// follow reads pi's output until pi ended, then records the result. A
// reader that fell behind is detached by the terminal: it attaches again
// and starts over from the scrollback, which holds all of a sign-in's
// output.
func (m *Manager) follow(r *run) {
	for {
		back, a, ok := r.term.Attach()
		if !ok {
			break
		}
		m.mu.Lock()
		r.screen = screen{}
		r.screen.write(back)
		m.bump(r)
		m.mu.Unlock()
		for p := range a.Out {
			m.mu.Lock()
			r.screen.write(p)
			m.bump(r)
			m.mu.Unlock()
		}
		if a.Ended() {
			break
		}
	}
	<-r.term.Done()
	m.mu.Lock()
	r.timer.Stop()
	r.ended = true
	if r.result == "" {
		r.result = Failed
		if r.term.ExitCode() == 0 {
			r.result = SignedIn
		}
	}
	m.bump(r)
	signedIn := r.result == SignedIn
	close(r.finished)
	m.mu.Unlock()
	if signedIn && m.opts.OnSignedIn != nil {
		m.opts.OnSignedIn(r.provider)
	}
}

// end kills a running sign-in, saying why.
func (m *Manager) end(r *run, why string) {
	m.mu.Lock()
	if r.ended || r.result != "" {
		m.mu.Unlock()
		return
	}
	r.result = why
	m.mu.Unlock()
	r.term.Close()
}

// State is provider's sign-in now; ok is false when none was started.
func (m *Manager) State(provider string) (State, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.runs[provider]
	if r == nil {
		return State{Provider: provider, Lines: []string{}}, false
	}
	return r.state(), true
}

// Wait returns provider's sign-in state once its Seq is above after, or
// as it is when ctx ends first (the caller bounds the wait); at once when
// none was started.
func (m *Manager) Wait(ctx context.Context, provider string, after uint64) State {
	for {
		m.mu.Lock()
		r, ch := m.runs[provider], m.changed
		if r == nil {
			m.mu.Unlock()
			return State{Provider: provider, Lines: []string{}}
		}
		if r.seq > after {
			st := r.state()
			m.mu.Unlock()
			return st
		}
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			st, _ := m.State(provider)
			return st
		}
	}
}

// Answer writes text and Enter to pi's terminal (the pasted code, or the
// answer to whatever pi asks). Line breaks in text are refused by the
// caller's validation; here they would end the answer early.
func (m *Manager) Answer(provider, text string) error {
	m.mu.Lock()
	r := m.runs[provider]
	if r == nil || r.ended || r.result != "" {
		m.mu.Unlock()
		return ErrNoRun
	}
	if len(text) >= 4 {
		r.answers = append(r.answers, text)
	}
	m.mu.Unlock()
	return r.term.Write([]byte(text + "\r"))
}

// Cancel kills provider's running sign-in and returns once pi ended and
// its result is recorded.
func (m *Manager) Cancel(provider string) error {
	m.mu.Lock()
	r := m.runs[provider]
	m.mu.Unlock()
	if r == nil {
		return ErrNoRun
	}
	m.end(r, Cancelled)
	<-r.finished
	return nil
}

// Close kills every running sign-in and refuses new ones.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.terms.Close()
}

// state is r as the page sees it (m.mu held).
func (r *run) state() State {
	lines := make([]string, 0, len(r.screen.lines))
	for _, l := range r.screen.lines {
		lines = append(lines, r.mask(l))
	}
	st := State{Provider: r.provider, Seq: r.seq, Running: !r.ended, Lines: lines}
	st.URL, st.UserCode = signInPage(r.screen.lines)
	if !r.ended {
		st.Prompt = r.mask(r.screen.partial())
		return st
	}
	st.Result = r.result
	if r.result == Failed {
		st.Error = lastWords(lines)
	}
	return st
}

// mask hides the answers given in one line of pi's output (pi echoes what
// is typed at its prompts).
func (r *run) mask(l string) string {
	for _, a := range r.answers {
		l = strings.ReplaceAll(l, a, "••••••")
	}
	return l
}

// lastWords is pi's explanation of a failed sign-in: its "Failed to log
// in" line (cli/auth-login.js), else the last line it printed.
func lastWords(lines []string) string {
	last := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Failed to log in") || strings.HasPrefix(l, "Unknown provider") {
			return l
		}
		if l != "" {
			last = l
		}
	}
	return last
}

// CommandLine is the terminal command that signs in to a provider when
// followed by its id: `pi auth login`, prefixed with PI_CODING_AGENT_DIR
// when agentDir is not pi's default (~/.pi/agent), so that the user's pi
// writes the auth.json piweb's pi reads. The page shows it beside the
// button, for a pi that cannot run here.
func CommandLine(agentDir string) string {
	home, _ := os.UserHomeDir()
	if agentDir == "" || filepath.Clean(agentDir) == filepath.Join(home, ".pi", "agent") {
		return "pi auth login"
	}
	return "PI_CODING_AGENT_DIR=" + shellQuote(agentDir) + " pi auth login"
}

// shellQuote is s as one POSIX shell word.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
