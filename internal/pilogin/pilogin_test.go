package pilogin

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// fakePi is a shell script standing in for `pi auth login` where the test
// is about the Manager, not pi (the server's tests run real pi 1.6.0): it
// prints a sign-in URL, asks for the code and answers as pi does.
const fakePi = `[ -t 0 ] || { echo "requires an interactive terminal"; exit 1; }
echo "Open this URL to sign in:"; echo "  https://auth.example.test/authorize?state=S1"
printf "\033[1G\033[0JPaste the code (code#state): "; read code
case "$code" in ok*) echo "Logged in to $3."; exit 0;; esac
echo "Failed to log in to $3: fetch failed" >&2; exit 1`

func newManager(t *testing.T, script string, timeout time.Duration) (*Manager, chan string) {
	t.Helper()
	signed := make(chan string, 4)
	m := New(Options{Timeout: timeout, OnSignedIn: func(p string) { signed <- p },
		Command: func(_ context.Context, args ...string) (*exec.Cmd, error) {
			cmd := exec.Command("/bin/sh", append([]string{"-c", script, "pi"}, args...)...)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			return cmd, nil
		}})
	t.Cleanup(m.Close)
	return m, signed
}

// waitFor waits until provider's state satisfies ok, through Wait.
func waitFor(t *testing.T, m *Manager, provider string, ok func(State) bool, what string) State {
	t.Helper()
	var st State
	testkit.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		st = m.Wait(ctx, provider, st.Seq)
		return ok(st)
	}, 10*time.Second, what)
	return st
}

// startAsked starts provider's sign-in and waits until pi asks its question.
func startAsked(t *testing.T, m *Manager, provider string) {
	t.Helper()
	if _, err := m.Start(context.Background(), provider); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, provider, func(s State) bool { return s.Prompt != "" }, "pi's question")
}

func TestSignInFailsWithPisWords(t *testing.T) {
	t.Parallel()
	m, signed := newManager(t, fakePi, time.Minute)
	if _, err := m.Start(context.Background(), "anthropic"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(context.Background(), "anthropic"); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Start: %v, want ErrRunning", err)
	}
	st := waitFor(t, m, "anthropic", func(s State) bool { return s.Prompt != "" }, "pi's question")
	if st.URL != "https://auth.example.test/authorize?state=S1" || st.Prompt != "Paste the code (code#state):" || !st.Running {
		t.Fatalf("state = %+v", st)
	}
	if err := m.Answer("anthropic", "secret-code#S1"); err != nil {
		t.Fatal(err)
	}
	st = waitFor(t, m, "anthropic", func(s State) bool { return !s.Running }, "pi's end")
	if st.Result != Failed || st.Error != "Failed to log in to anthropic: fetch failed" {
		t.Errorf("result %q, error %q; lines %q", st.Result, st.Error, st.Lines)
	}
	if strings.Contains(fmt.Sprint(st), "secret-code") {
		t.Errorf("the answer shows in the state: %+v", st)
	}
	if err := m.Answer("anthropic", "again"); !errors.Is(err, ErrNoRun) {
		t.Errorf("Answer after the end: %v, want ErrNoRun", err)
	}
	select {
	case p := <-signed:
		t.Errorf("OnSignedIn(%q) after a failure", p)
	default:
	}
}

func TestSignInSucceeds(t *testing.T) {
	t.Parallel()
	m, signed := newManager(t, fakePi, time.Minute)
	startAsked(t, m, "xai")
	if err := m.Answer("xai", "ok-code"); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, m, "xai", func(s State) bool { return !s.Running }, "pi's end")
	if st.Result != SignedIn || st.Error != "" {
		t.Errorf("state = %+v", st)
	}
	if p := <-signed; p != "xai" {
		t.Errorf("OnSignedIn(%q)", p)
	}
	if _, err := m.Start(context.Background(), "xai"); err != nil {
		t.Errorf("a new sign-in after the last ended: %v", err)
	}
}

func TestSignInCancelAndTimeoutKill(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, fakePi, time.Minute)
	startAsked(t, m, "a")
	pid := m.runs["a"].term.Info().PID
	if err := m.Cancel("a"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.State("a"); st.Running || st.Result != Cancelled {
		t.Errorf("after Cancel: %+v", st)
	}
	if exec.Command("kill", "-0", fmt.Sprint(pid)).Run() == nil {
		t.Errorf("pi (pid %d) still runs after Cancel", pid)
	}

	short, _ := newManager(t, fakePi, 300*time.Millisecond)
	if _, err := short.Start(context.Background(), "b"); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, short, "b", func(s State) bool { return !s.Running }, "the timeout")
	if st.Result != TimedOut {
		t.Errorf("after the timeout: %+v", st)
	}
}

func TestCloseKillsSignIns(t *testing.T) {
	t.Parallel()
	m, _ := newManager(t, fakePi, time.Minute)
	startAsked(t, m, "a")
	term := m.runs["a"].term
	m.Close()
	select {
	case <-term.Done():
	default:
		t.Fatal("pi still runs after Close")
	}
	if _, err := m.Start(context.Background(), "b"); err == nil {
		t.Error("Start after Close succeeded")
	}
}
