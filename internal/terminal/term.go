package terminal

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// subQueue is how many output chunks an attached client may have waiting;
// a client that falls further behind is detached (it reattaches and gets
// the scrollback).
const subQueue = 256

// Term is one shell on a PTY. Output goes to the scrollback and to every
// attached client in the order the shell wrote it.
type Term struct {
	info   Info
	opts   Options
	cmd    *exec.Cmd
	pty    *os.File
	pts    string        // the terminal side's path, to find who holds it
	exited chan struct{} // closed when the shell was reaped
	done   chan struct{} // closed when the shell has exited and output ended
	ended  func(*Term)   // runs just before done is closed

	mu      sync.Mutex
	ring    ring
	subs    map[*Attachment]struct{}
	idle    *time.Timer
	closing bool
	closed  bool // pty is closed (Resize and hangUp use it under mu)
}

// Attachment is one client's view of a terminal: Out carries output after
// the scrollback it was given, and is closed when the terminal ends or the
// client fell too far behind.
type Attachment struct {
	Out   <-chan []byte
	out   chan []byte
	t     *Term
	ended bool // the shell exited (set under t.mu before out is closed)
}

// Ended reports, once Out is closed, whether it closed because the shell
// exited (rather than a detach or falling behind).
func (a *Attachment) Ended() bool {
	a.t.mu.Lock()
	defer a.t.mu.Unlock()
	return a.ended
}

// start starts cmd on a PTY; ended runs once it has ended, before Done
// is closed (the Manager frees its slot there, so a Close that returned
// has freed it).
func start(cmd *exec.Cmd, id, owner, dir string, cols, rows int, opts Options, ended func(*Term)) (*Term, error) {
	f, err := pty.StartWithSize(cmd, size(cols, rows))
	if err == nil {
		f, err = pollable(f)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	if err != nil {
		return nil, err
	}
	t := &Term{info: Info{ID: id, Owner: owner, Cwd: dir, Started: time.Now(), PID: cmd.Process.Pid},
		opts: opts, cmd: cmd, pty: f, pts: ptsName(f), exited: make(chan struct{}), done: make(chan struct{}),
		ring: ring{max: opts.Scrollback}, subs: map[*Attachment]struct{}{}, ended: ended}
	t.idle = time.AfterFunc(opts.Idle, t.Close)
	go func() {
		t.cmd.Wait()
		close(t.exited)
	}()
	go t.run()
	return t, nil
}

func size(cols, rows int) *pty.Winsize {
	clamp := func(v, def int) uint16 {
		if v <= 0 || v > 1000 {
			return uint16(def)
		}
		return uint16(v)
	}
	return &pty.Winsize{Cols: clamp(cols, 80), Rows: clamp(rows, 24)}
}

// Info describes the terminal.
func (t *Term) Info() Info { return t.info }

// Done is closed once the shell has exited and its output was delivered.
func (t *Term) Done() <-chan struct{} { return t.done }

// ExitCode is the process's exit status once Done is closed: -1 when a
// signal ended it (Close), or before it ended.
func (t *Term) ExitCode() int {
	select {
	case <-t.done:
		return t.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// run copies the output until every process has let go of the terminal
// and the shell has ended, then ends the terminal. A shell that exited
// while something still holds the terminal (a job that left its session)
// gets KillAfter for the rest of its output, then the terminal is closed
// as an emulator closes its window.
func (t *Term) run() {
	read := make(chan struct{})
	go func() {
		t.pump()
		close(read)
	}()
	select {
	case <-read:
	case <-t.exited:
		select {
		case <-read:
		case <-time.After(t.opts.KillAfter):
			go t.Close()
			<-read
		}
	}
	<-t.exited
	t.mu.Lock()
	t.idle.Stop()
	for a := range t.subs {
		a.ended = true
		close(a.out)
	}
	t.subs = nil
	t.closeMaster()
	t.mu.Unlock()
	t.ended(t)
	close(t.done)
}

// pump copies the PTY's output to the scrollback and the clients until
// the terminal side is gone or the master is closed.
func (t *Term) pump() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			t.publish(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// closeMaster closes the PTY's master once (t.mu held): pump's Read ends
// and the terminal side is hung up.
func (t *Term) closeMaster() {
	if !t.closed {
		t.pty.Close()
		t.closed = true
	}
}

func (t *Term) publish(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ring.write(p)
	for a := range t.subs {
		select {
		case a.out <- append([]byte(nil), p...):
		default: // too far behind: it reattaches from the scrollback
			delete(t.subs, a)
			close(a.out)
		}
	}
	if len(t.subs) == 0 {
		t.idle.Reset(t.opts.Idle) // output alone keeps it alive too
	}
}

// Attach returns the scrollback and an Attachment receiving what follows
// it, with nothing lost or repeated between them; ok is false once the
// terminal has ended. While a client is attached the idle timer is off.
func (t *Term) Attach() (scrollback []byte, a *Attachment, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.subs == nil {
		return nil, nil, false
	}
	out := make(chan []byte, subQueue)
	a = &Attachment{Out: out, out: out, t: t}
	t.subs[a] = struct{}{}
	t.idle.Stop()
	return t.ring.bytes(), a, true
}

// Detach ends the attachment; with no client left the idle time starts.
func (a *Attachment) Detach() {
	t := a.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.subs[a]; !ok {
		return
	}
	delete(t.subs, a)
	close(a.out)
	if len(t.subs) == 0 {
		t.idle.Reset(t.opts.Idle)
	}
}

// Write sends input to the shell.
func (t *Term) Write(p []byte) error {
	_, err := t.pty.Write(p)
	return err
}

// Resize sets the PTY's size (the shell gets SIGWINCH); after the shell
// ended it is os.ErrClosed. It holds t.mu: reading the PTY's descriptor
// while pump closes it is a data race.
func (t *Term) Resize(cols, rows int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return os.ErrClosed
	}
	return setSize(t.pty, cols, rows)
}

// Close ends the shell and everything that holds its terminal: SIGHUP to
// the processes of its session and to any other with the terminal open
// (as a terminal closing does), SIGKILL to those left after KillAfter,
// then the master is closed. It returns once the shell was reaped,
// whatever its jobs do: a job that left the session but kept the terminal
// no longer holds the output open.
func (t *Term) Close() {
	t.mu.Lock()
	first := !t.closing
	t.closing = true
	t.mu.Unlock()
	if first {
		deadline := time.Now().Add(t.opts.KillAfter)
		t.signal(syscall.SIGHUP)
		t.signal(syscall.SIGCONT)
		select {
		case <-t.done:
		case <-time.After(t.opts.KillAfter):
		}
		t.endHolders(deadline)
		t.mu.Lock()
		t.closeMaster()
		t.mu.Unlock()
	}
	<-t.done
}

// endHolders waits until deadline for the terminal's processes to end
// after the hangup, then kills what is left (a job that ignores SIGHUP
// outlives its shell) until none is alive or 2 s later. The kill always
// comes, however long the waits and the looks into /proc took (a loaded
// machine).
func (t *Term) endHolders(deadline time.Time) {
	for t.holdersAlive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for giveUp := time.Now().Add(2 * time.Second); t.holdersAlive(); time.Sleep(20 * time.Millisecond) {
		t.signal(syscall.SIGKILL)
		if time.Now().After(giveUp) {
			return
		}
	}
}

// signal sends sig to the terminal's processes. Those outside the shell's
// session are looked for by the terminal's path only while the master is
// open (t.mu held): once it is closed and the last holder gone, another
// terminal may get the same path.
func (t *Term) signal(sig syscall.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	signalHolders(t.info.PID, t.openPTS(), sig) // pty.Start makes the shell a session leader
}

func (t *Term) holdersAlive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return holdersAlive(t.info.PID, t.openPTS())
}

// openPTS is the terminal side's path while the master is open, else "".
func (t *Term) openPTS() string {
	if t.closed {
		return ""
	}
	return t.pts
}
