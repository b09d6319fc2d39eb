package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"piweb/internal/errs"
)

// Options says how to start one pi process.
type Options struct {
	// Pi is the executable; nil means Find(ctx, "").
	Pi *Pi
	// SessionFile, if set, is resumed with --session (made absolute: pi
	// resolves relative paths against its own cwd, and a uuid prefix could
	// make pi ask a question on stdout, pi-rpc.md §4.9). pi then adopts the
	// cwd stored in the file's header and exits when it no longer exists.
	SessionFile string
	// Cwd is the process directory, which is the project of a new session.
	// Empty means the current directory.
	Cwd string
	// SessionDir overrides where new sessions are written (--session-dir).
	SessionDir string
	// NoSession keeps the session in memory (--no-session).
	NoSession bool
	// Model is "provider/id" (--model); Thinking a level such as "low".
	Model    string
	Thinking string
	// Tools, when non-nil, is the tool allow-list (--tools a,b); an empty
	// non-nil slice disables tools (--no-tools).
	Tools []string
	// Extensions are extra extension files loaded with -e.
	Extensions []string
	// AgentDir sets PI_CODING_AGENT_DIR (pi's config: models, settings,
	// auth). Empty keeps pi's default (~/.pi/agent).
	AgentDir string
	// Env is added to piweb's environment. PI_OFFLINE=1 is always set:
	// piweb never wants pi to reach the network except for the LLM.
	Env []string
	// Args are appended verbatim, e.g. "--no-context-files".
	Args []string
	// OnEvent receives every event in pi's order, on the reader goroutine.
	// It must not block: pi's stdout is not read while it runs.
	OnEvent func(Event)
}

func (o *Options) args() ([]string, error) {
	args := []string{"--mode", "rpc"}
	switch {
	case o.NoSession:
		args = append(args, "--no-session")
	case o.SessionFile != "":
		abs, err := filepath.Abs(o.SessionFile)
		if err != nil {
			return nil, fmt.Errorf("session path: %w", err)
		}
		args = append(args, "--session", abs)
	}
	if o.SessionDir != "" {
		args = append(args, "--session-dir", o.SessionDir)
	}
	if o.Model != "" {
		args = append(args, "--model", o.Model)
	}
	if o.Thinking != "" {
		args = append(args, "--thinking", o.Thinking)
	}
	if o.Tools != nil {
		if len(o.Tools) == 0 {
			args = append(args, "--no-tools")
		} else {
			args = append(args, "--tools", strings.Join(o.Tools, ","))
		}
	}
	for _, e := range o.Extensions {
		args = append(args, "-e", e)
	}
	return append(args, o.Args...), nil
}

func (o *Options) command(pi *Pi) (*exec.Cmd, error) {
	args, err := o.args()
	if err != nil {
		return nil, err
	}
	cmd := o.plain(pi, args...)
	// Own process group, so that shutdown signals reach pi's children
	// (bash tool runs) and a ^C on piweb's terminal does not hit pi first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}

// plain is pi started with args, the node, cwd, agent dir and environment
// of o, and nothing else (no process attributes).
func (o *Options) plain(pi *Pi, args ...string) *exec.Cmd {
	return o.piCommand(pi, args, true)
}

// piCommand is pi (through the checked node when known) with args, in
// o.Cwd, with o's agent dir and environment; offline adds PI_OFFLINE=1.
func (o *Options) piCommand(pi *Pi, args []string, offline bool) *exec.Cmd {
	cmd := exec.Command(pi.Path, args...)
	if pi.Node != "" && pi.Script != "" {
		cmd = exec.Command(pi.Node, append([]string{pi.Script}, args...)...)
	}
	cmd.Dir = o.Cwd
	cmd.Env = os.Environ()
	if offline {
		cmd.Env = append(cmd.Env, "PI_OFFLINE=1")
	}
	if o.AgentDir != "" {
		cmd.Env = append(cmd.Env, "PI_CODING_AGENT_DIR="+o.AgentDir)
	}
	cmd.Env = append(cmd.Env, o.Env...)
	return cmd
}

// ExitError says that pi exited (or could not be run); it carries what pi
// wrote on stderr last, which is where pi explains startup failures.
type ExitError struct {
	Status int // exit code, -1 if killed by a signal or never started
	Signal string
	Stderr string // tail
	Err    error
}

func (e *ExitError) Error() string {
	var b strings.Builder
	b.WriteString("pi exited")
	if e.Signal != "" {
		fmt.Fprintf(&b, " on %s", e.Signal)
	} else {
		fmt.Fprintf(&b, " with status %d", e.Status)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString(": ")
		b.WriteString(s)
	}
	return b.String()
}

func (e *ExitError) Unwrap() error { return e.Err }

// CwdGoneError is pi refusing to open a session whose stored working
// directory no longer exists (pi-rpc.md §4.9). Recreate the directory, or
// fork the session into an existing one.
type CwdGoneError struct {
	Dir         string
	SessionFile string
	Exit        *ExitError
}

func (e *CwdGoneError) Error() string {
	return fmt.Sprintf("session %s was recorded in %s, which no longer exists; recreate it or fork the session elsewhere",
		e.SessionFile, e.Dir)
}

func (e *CwdGoneError) Unwrap() error { return e.Exit }

// ErrorKind is errs.Invalid: the client may recreate the folder or fork
// (errs.Classified).
func (e *CwdGoneError) ErrorKind() errs.Kind { return errs.Invalid }

// ClientMessage says so without the folder's path.
func (e *CwdGoneError) ClientMessage() string {
	return "the session's working directory no longer exists"
}

const cwdGoneMarker = "Stored session working directory does not exist: "

// RefusedError is pi exiting at start because it refused what it was
// asked to start with (an unknown model, for one), with its reason: the
// user's choice to correct, not piweb's failure.
type RefusedError struct {
	Reason string // pi's "Error: " line without the prefix
	Exit   *ExitError
}

func (e *RefusedError) Error() string { return "pi refused to start: " + e.Reason }

// ErrorKind is errs.Invalid: the user's choice to correct (errs.Classified).
func (e *RefusedError) ErrorKind() errs.Kind { return errs.Invalid }

// ClientMessage is pi's reason, first line only (a JavaScript stack under
// it would name pi's install paths).
func (e *RefusedError) ClientMessage() string {
	msg, _, _ := strings.Cut(e.Reason, "\n")
	return "pi refused: " + msg
}

func (e *RefusedError) Unwrap() error {
	if e.Exit == nil {
		return nil
	}
	return e.Exit
}

// classifyExit turns a startup exit into CwdGoneError or RefusedError when
// pi said why.
func classifyExit(e *ExitError, sessionFile string) error {
	i := strings.Index(e.Stderr, cwdGoneMarker)
	if i < 0 {
		return refused(e)
	}
	dir, _, _ := strings.Cut(e.Stderr[i+len(cwdGoneMarker):], "\n")
	return &CwdGoneError{Dir: strings.TrimSpace(dir), SessionFile: sessionFile, Exit: e}
}

// refused finds pi's "Error: reason" line (how pi's CLI reports bad
// arguments before it exits 1).
func refused(e *ExitError) error {
	for line := range strings.Lines(e.Stderr) {
		if reason, ok := strings.CutPrefix(strings.TrimSpace(line), "Error: "); ok && e.Status > 0 {
			return &RefusedError{Reason: reason, Exit: e}
		}
	}
	return e
}

func exitInfo(ps *os.ProcessState, err error, stderr string) *ExitError {
	e := &ExitError{Status: -1, Stderr: stderr, Err: err}
	if ps == nil {
		return e
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Signal = ws.Signal().String()
		return e
	}
	e.Status = ps.ExitCode()
	return e
}

// signalGroup signals pi's whole process group.
func signalGroup(pid int, sig syscall.Signal) error {
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// DefaultKillGrace is how long Close waits after SIGTERM before SIGKILL.
// pi handles SIGTERM by killing its detached tool processes and flushing.
const DefaultKillGrace = 3 * time.Second

// stop sends SIGTERM to the group, then SIGKILL after grace or when ctx
// ends, and waits for exit.
func stop(ctx context.Context, pid int, exited <-chan struct{}, grace time.Duration) {
	_ = signalGroup(pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
		// Not signalled again: once pi is reaped its pid (and so the
		// group id) may be reused by an unrelated process.
		return
	case <-t.C:
	case <-ctx.Done():
	}
	_ = signalGroup(pid, syscall.SIGKILL)
	<-exited
}
