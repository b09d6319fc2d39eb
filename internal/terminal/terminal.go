// Package terminal runs interactive shells on real pseudo-terminals for
// piweb's Terminal panel, and other interactive commands that need a
// terminal (pi's `pi auth login`). A Manager owns every process it starts:
// each belongs to an owner (an opaque name: a piweb session's API id for
// the panel's shells, a name such as "signin/anthropic" for others), keeps
// a bounded scrollback that a reconnecting client gets first, and ends when
// it is closed, when the Manager closes (piweb stops) or after it has had
// no client attached for the idle time. The package starts processes; it
// knows nothing of HTTP, and its callers decide who may use it.
package terminal

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/opt"
)

// Defaults of Options' zero values.
const (
	DefaultScrollback = 256 << 10
	DefaultIdle       = 30 * time.Minute
	DefaultPerOwner   = 8
	DefaultTotal      = 32
	defaultKillAfter  = 2 * time.Second
)

// Options configures a Manager. Zero values take the defaults above.
type Options struct {
	// Shell is the program started (default $SHELL from Getenv, else
	// /bin/sh); it gets Args.
	Shell string
	Args  []string
	// Env is the shells' environment (default os.Environ()); TERM is set
	// to xterm-256color.
	Env []string
	// Scrollback is how many bytes of output a terminal keeps for
	// reconnecting clients.
	Scrollback int
	// Idle is how long a terminal lives with no client attached.
	Idle time.Duration
	// PerOwner and Total cap the live terminals of one owner and in all.
	PerOwner, Total int
	// KillAfter is how long a closed shell's process group has between
	// SIGHUP and SIGKILL.
	KillAfter time.Duration
}

func (o Options) withDefaults() Options {
	if o.Shell == "" {
		o.Shell = os.Getenv("SHELL")
		if o.Shell == "" {
			o.Shell = "/bin/sh"
		}
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	o.Env = append(withoutVar(o.Env, "TERM"), "TERM=xterm-256color", "COLORTERM=truecolor")
	opt.Positive(&o.Scrollback, DefaultScrollback)
	opt.Positive(&o.Idle, DefaultIdle)
	opt.Positive(&o.PerOwner, DefaultPerOwner)
	opt.Positive(&o.Total, DefaultTotal)
	opt.Positive(&o.KillAfter, defaultKillAfter)
	return o
}

func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)+1] == name+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Errors of Start and Get.
var (
	ErrNotFound = errs.New(errs.NotFound, "no such terminal (it ended)", "terminal: no such terminal")
	ErrTooMany  = errs.New(errs.Throttled, "too many terminals are open; close one first", "terminal: too many terminals open")
	ErrClosed   = errs.New(errs.Forbidden, "piweb is stopping", "terminal: terminals are shut down")
	ErrNoDir    = errs.New(errs.NotFound, "the session's directory does not exist", "terminal: the folder does not exist")
)

// Manager owns every terminal. Its methods are safe for concurrent use.
type Manager struct {
	opts   Options
	mu     sync.Mutex
	terms  map[string]*Term
	closed bool
}

// New returns a Manager with no terminals.
func New(opts Options) *Manager {
	return &Manager{opts: opts.withDefaults(), terms: map[string]*Term{}}
}

// Info describes a live terminal (apitype.TerminalInfo, where the API's shapes are
// defined).
type Info = apitype.TerminalInfo

// Start starts a shell in dir for owner on a PTY of the given size. It
// fails with ErrTooMany past the caps, ErrNoDir when dir is not a
// folder, and ErrClosed after Close.
func (m *Manager) Start(owner, dir string, cols, rows int) (*Term, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, ErrNoDir
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.roomFor(owner); err != nil {
		return nil, err
	}
	cmd := exec.Command(m.opts.Shell, m.opts.Args...)
	cmd.Dir, cmd.Env = dir, m.opts.Env
	return m.startLocked(owner, cmd, cols, rows)
}

// Run starts cmd for owner on a PTY of the given size, instead of the
// shell: the command variant, for programs that insist on a terminal.
// cmd's Env (Options.Env when nil) gets TERM as the shells' does; its
// SysProcAttr is replaced, as the PTY makes cmd a session leader with the
// terminal as its controlling one (what Close signals). The caps and
// errors are Start's.
func (m *Manager) Run(owner string, cmd *exec.Cmd, cols, rows int) (*Term, error) {
	if cmd.Env == nil {
		cmd.Env = m.opts.Env
	} else {
		cmd.Env = append(withoutVar(cmd.Env, "TERM"), "TERM=xterm-256color")
	}
	cmd.SysProcAttr = nil
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.roomFor(owner); err != nil {
		return nil, err
	}
	return m.startLocked(owner, cmd, cols, rows)
}

// startLocked starts cmd on a PTY and keeps it until it ends; m.mu is held.
func (m *Manager) startLocked(owner string, cmd *exec.Cmd, cols, rows int) (*Term, error) {
	t, err := start(cmd, newID(), owner, cmd.Dir, cols, rows, m.opts, m.forget)
	if err != nil {
		return nil, fmt.Errorf("terminal: start %s: %w", cmd.Path, err)
	}
	m.terms[t.info.ID] = t
	return t, nil
}

func (m *Manager) roomFor(owner string) error {
	if m.closed {
		return ErrClosed
	}
	n := 0
	for _, t := range m.terms {
		if t.info.Owner == owner {
			n++
		}
	}
	if n >= m.opts.PerOwner || len(m.terms) >= m.opts.Total {
		return ErrTooMany
	}
	return nil
}

func (m *Manager) forget(t *Term) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.terms[t.info.ID] == t {
		delete(m.terms, t.info.ID)
	}
}

func newID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Get returns owner's live terminal id; another owner's is ErrNotFound.
func (m *Manager) Get(owner, id string) (*Term, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.terms[id]
	if !ok || t.info.Owner != owner {
		return nil, ErrNotFound
	}
	return t, nil
}

// List returns owner's live terminals, oldest first.
func (m *Manager) List(owner string) []Info {
	m.mu.Lock()
	out := []Info{}
	for _, t := range m.terms {
		if t.info.Owner == owner {
			out = append(out, t.info)
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// Close ends every terminal and refuses new ones; it returns when their
// shells have exited.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := make([]*Term, 0, len(m.terms))
	for _, t := range m.terms {
		all = append(all, t)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range all {
		wg.Go(t.Close)
	}
	wg.Wait()
}
