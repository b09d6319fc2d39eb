package terminal

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// shellOpts runs /bin/sh with a fixed prompt, so tests read known output.
func shellOpts() Options {
	return Options{Shell: "/bin/sh", Env: []string{"PATH=/usr/bin:/bin", "PS1=$ ", "HOME=/tmp"}}
}

// startShell starts a shell of owner "s" in dir (a new folder when "")
// with o (shellOpts when zero) on a manager closed when the test ends.
func startShell(t *testing.T, o Options, dir string) (*Manager, *Term) {
	t.Helper()
	if o.Shell == "" {
		o.Shell, o.Env = shellOpts().Shell, shellOpts().Env
	}
	if dir == "" {
		dir = t.TempDir()
	}
	m := New(o)
	t.Cleanup(m.Close)
	term, err := m.Start("s", dir, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	return m, term
}

// collector gathers an attachment's output.
type collector struct {
	testkit.Output
	end chan struct{}
}

func collect(t *testing.T, term *Term) *collector {
	t.Helper()
	back, a, ok := term.Attach()
	if !ok {
		t.Fatal("attach: terminal ended")
	}
	c := &collector{end: make(chan struct{})}
	c.Write(back)
	go func() {
		defer close(c.end)
		for p := range a.Out {
			c.Write(p)
		}
	}()
	t.Cleanup(a.Detach)
	return c
}

var childRE = regexp.MustCompile(`child=([0-9]+)\.`)

// childPID waits for the line "child=PID." a test's command prints and
// returns the pid.
func (c *collector) childPID(t *testing.T) int {
	t.Helper()
	var pid int
	testkit.Eventually(t, func() bool {
		if m := childRE.FindStringSubmatch(c.String()); m != nil {
			pid, _ = strconv.Atoi(m[1])
		}
		return pid != 0
	}, 5*time.Second, "the child's pid")
	return pid
}

// alive reports whether pid runs (a zombie waiting for its parent to reap
// it has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func TestShellEchoResizeAndClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, term := startShell(t, Options{}, dir)
	out := collect(t, term)
	term.Write([]byte("echo hi-$((40+2)) && pwd\n"))
	testkit.Eventually(t, out.Has("hi-42"), 5*time.Second, "echo's output")
	testkit.Eventually(t, out.Has(dir), 5*time.Second, "the shell runs in the folder")
	if err := term.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	term.Write([]byte("stty size\n"))
	testkit.Eventually(t, out.Has("30 100"), 5*time.Second, "the new size")
	pid := term.Info().PID
	term.Close()
	if alive(pid) {
		t.Errorf("shell %d still alive after Close", pid)
	}
	if _, err := m.Get("s", term.Info().ID); !errors.Is(err, ErrNotFound) {
		testkit.Eventually(t, func() bool { _, err := m.Get("s", term.Info().ID); return err != nil }, 2*time.Second, "the manager forgets it")
	}
}

func TestScrollbackReplayedOnAttach(t *testing.T) {
	t.Parallel()
	_, term := startShell(t, Options{}, "")
	first := collect(t, term)
	term.Write([]byte("echo first-$((1+1))\n"))
	testkit.Eventually(t, first.Has("first-2"), 5*time.Second, "first output")
	second := collect(t, term) // a page reload: a new client
	if err := second.Has("first-2")(); err != nil {
		t.Fatalf("reattach did not replay the scrollback: %v", err)
	}
	term.Write([]byte("echo again-$((2+1))\n"))
	testkit.Eventually(t, second.Has("again-3"), 5*time.Second, "live output after the replay")
}

func TestOwnersAndCaps(t *testing.T) {
	t.Parallel()
	o := shellOpts()
	o.PerOwner, o.Total = 2, 3
	m := New(o)
	defer m.Close()
	dir := t.TempDir()
	a, _ := m.Start("a", dir, 0, 0)
	if _, err := m.Start("a", dir, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start("a", dir, 0, 0); !errors.Is(err, ErrTooMany) {
		t.Errorf("third of one owner: %v, want ErrTooMany", err)
	}
	if _, err := m.Get("b", a.Info().ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another owner's terminal: %v, want ErrNotFound", err)
	}
	if _, err := m.Start("b", dir+"/missing", 0, 0); !errors.Is(err, ErrNoDir) {
		t.Errorf("missing folder: %v, want ErrNoDir", err)
	}
	if got := len(m.List("a")); got != 2 {
		t.Errorf("List(a) = %d terminals, want 2", got)
	}
}

func TestIdleTimeoutEndsShell(t *testing.T) {
	t.Parallel()
	_, term := startShell(t, Options{Idle: 100 * time.Millisecond}, "")
	_, a, _ := term.Attach()
	select {
	case <-term.Done():
		t.Fatal("an attached terminal ended as idle")
	case <-time.After(300 * time.Millisecond):
	}
	a.Detach()
	select {
	case <-term.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a terminal with no client did not end after its idle time")
	}
	if alive(term.Info().PID) {
		t.Error("shell alive after the idle timeout")
	}
}

func TestManagerCloseEndsEveryShell(t *testing.T) {
	t.Parallel()
	o := shellOpts()
	o.KillAfter = 200 * time.Millisecond
	m := New(o)
	var pids []int
	for range 3 {
		term, err := m.Start("s", t.TempDir(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, term.Info().PID)
		// A job in its own process group that ignores SIGHUP is killed
		// after KillAfter.
		out := collect(t, term)
		term.Write([]byte(`sh -c 'trap "" HUP; echo "child=$$."; exec sleep 100'` + "\n"))
		pids = append(pids, out.childPID(t))
	}
	m.Close()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d alive after Manager.Close", pid)
		}
	}
	if _, err := m.Start("s", t.TempDir(), 0, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
}

func TestBinaryOutputPassesThrough(t *testing.T) {
	t.Parallel()
	_, term := startShell(t, Options{}, "")
	out := collect(t, term)
	term.Write([]byte(`printf '\033[31mred\033[0m \377\376 done-%s\n' ok` + "\n"))
	testkit.Eventually(t, out.Has("\x1b[31mred\x1b[0m \xff\xfe done-ok"), 5*time.Second, "escape sequences and invalid UTF-8 unchanged")
}

func TestRing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"fits", 100, []string{"ab", "cd"}, "abcd"},
		{"drops whole lines", 10, []string{"line1\nli", "ne2\nxy"}, "line2\nxy"},
		{"cuts mid-line when the line is long", 8, []string{"abcdefgh", "ij"}, "cdefghij"},
		{"one write over max", 4, []string{"a\nbcdefg"}, "defg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ring{max: tc.max}
			for _, w := range tc.writes {
				r.write([]byte(w))
			}
			if got := string(r.bytes()); got != tc.want {
				t.Errorf("ring = %q, want %q", got, tc.want)
			}
			if len(r.bytes()) > tc.max {
				t.Errorf("ring holds %d bytes, max %d", len(r.bytes()), tc.max)
			}
		})
	}
}

// TestResizeWhileShellEnds resizes a terminal while its shell exits: the
// PTY's descriptor was read by Resize while the output pump closed it (a
// data race -race caught in the browser test's resize).
func TestResizeWhileShellEnds(t *testing.T) {
	t.Parallel()
	_, term := startShell(t, Options{}, "")
	term.Write([]byte("exit\n"))
	for i := 0; ; i++ {
		select {
		case <-term.Done():
			if err := term.Resize(90, 30); !errors.Is(err, os.ErrClosed) {
				t.Errorf("resize after the shell ended: %v, want os.ErrClosed", err)
			}
			return
		default:
			term.Resize(80+i%20, 24)
		}
	}
}

// TestRunCommandOnPTY runs a command instead of the shell, as pi's sign-in
// is run: it sees a terminal on stdin, prints a line, reads what is
// written to it, and its exit status is kept.
func TestRunCommandOnPTY(t *testing.T) {
	t.Parallel()
	m := New(shellOpts())
	defer m.Close()
	script := `[ -t 0 ] || { echo "no tty"; exit 9; }; echo "Open this URL to sign in:"; echo "  https://example.test/a?b=1"; printf "Paste the code: "; read code; echo "got <$code>"; exit 3`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TERM=dumb"}
	term, err := m.Run("signin/x", cmd, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	c := collect(t, term)
	testkit.Eventually(t, c.Has("Paste the code: "), 5*time.Second, "Paste the code: ")
	if code := term.ExitCode(); code != -1 {
		t.Errorf("ExitCode while running = %d, want -1", code)
	}
	if err := term.Write([]byte("abc#def\r")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, c.Has("got <abc#def>"), 5*time.Second, "got <abc#def>")
	<-term.Done()
	if code := term.ExitCode(); code != 3 {
		t.Errorf("ExitCode = %d, want 3; output %q", code, c.String())
	}
	if strings.Contains(c.String(), "no tty") {
		t.Error("the command saw no terminal")
	}
}

// TestRunCapsAndClose: a non-session owner has the same per-owner cap (one
// sign-in per provider with PerOwner 1), and Close kills the command and
// whatever it started.
func TestRunCapsAndClose(t *testing.T) {
	t.Parallel()
	o := shellOpts()
	o.PerOwner = 1
	m := New(o)
	defer m.Close()
	run := func(owner string) (*Term, error) {
		return m.Run(owner, exec.Command("/bin/sh", "-c", `sleep 300 & echo "child=$!."; wait`), 80, 24)
	}
	term, err := run("signin/a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run("signin/a"); !errors.Is(err, ErrTooMany) {
		t.Fatalf("second run for the same owner: %v, want ErrTooMany", err)
	}
	other, err := run("signin/b")
	if err != nil {
		t.Fatalf("another owner: %v", err)
	}
	defer other.Close()
	c := collect(t, term)
	child := c.childPID(t)
	term.Close()
	if code := term.ExitCode(); code != -1 {
		t.Errorf("ExitCode after Close = %d, want -1 (killed)", code)
	}
	testkit.Eventually(t, func() bool { return !alive(child) }, 5*time.Second, "the command's child ended")
	if _, err := run("signin/a"); err != nil {
		t.Errorf("run after the first ended: %v", err)
	}
}
