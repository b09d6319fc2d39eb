package terminal

import (
	"syscall"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// startEscaper starts a shell whose job leaves the shell's session
// (setsid) but keeps the terminal open as its stdin, stdout and stderr,
// ignoring SIGHUP, and returns the terminal and the job's pid.
func startEscaper(t *testing.T, m *Manager) (*Term, int) {
	t.Helper()
	term, err := m.Start("s", t.TempDir(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := collect(t, term)
	term.Write([]byte(`setsid sh -c 'trap "" HUP; echo "child=$$."; exec sleep 1000' &` + "\n"))
	pid := out.childPID(t)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return term, pid
}

// within fails the test when fn has not returned after d (it stays
// blocked: the test ends anyway).
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	ended := make(chan struct{})
	go func() { fn(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// TestCloseEndsEscapedChild: a job that left the shell's session still
// holds the terminal; closing the terminal kills it, reaps the shell,
// frees the slot, and the Manager's Close is not held up.
func TestCloseEndsEscapedChild(t *testing.T) {
	t.Parallel()
	o := shellOpts()
	o.KillAfter, o.PerOwner = 200*time.Millisecond, 1
	m := New(o)
	term, child := startEscaper(t, m)
	within(t, 10*time.Second, "Close", term.Close)
	if alive(child) {
		t.Errorf("escaped job %d alive after Close", child)
	}
	if alive(term.Info().PID) {
		t.Errorf("shell %d alive after Close", term.Info().PID)
	}
	if n := len(m.List("s")); n != 0 {
		t.Errorf("%d terminals listed after Close, want its slot freed", n)
	}
	if _, err := m.Start("s", t.TempDir(), 0, 0); err != nil {
		t.Errorf("start after Close: %v", err)
	}
	within(t, 10*time.Second, "Manager.Close", m.Close)
}

// TestShellExitEndsTerminal: the shell exits on its own while an escaped
// job holds the terminal; the terminal ends anyway (as an emulator closes
// its window when the shell exits) and keeps the shell's exit status.
func TestShellExitEndsTerminal(t *testing.T) {
	t.Parallel()
	o := shellOpts()
	o.KillAfter = 200 * time.Millisecond
	m := New(o)
	defer within(t, 10*time.Second, "Manager.Close", m.Close)
	term, child := startEscaper(t, m)
	term.Write([]byte("exit 7\n"))
	within(t, 10*time.Second, "Done", func() { <-term.Done() })
	if code := term.ExitCode(); code != 7 {
		t.Errorf("ExitCode = %d, want 7", code)
	}
	testkit.Eventually(t, func() bool { return !alive(child) }, 5*time.Second, "the escaped job ended")
}
