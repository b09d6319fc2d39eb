package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestServeLeaveDemo: with no sessions piweb shows the demo; once the
// user's own sessions exist, POST /api/demo/leave (the banner's button)
// switches the running piweb to them on the same address, keeping the
// session the user started in a real folder during the demo (issue 14.8).
func TestServeLeaveDemo(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	real := filepath.Join(t.TempDir(), "agent")
	s := startServeEnv(t, map[string]string{"PI_CODING_AGENT_DIR": real}, "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
	st := status(t, s.url)
	if !st.Demo {
		t.Fatalf("no demo without sessions: %+v", st)
	}
	demoDir := st.AgentDir
	// A session of the user's own (a terminal pi), and one started in a
	// real folder during the demo.
	work := t.TempDir()
	mine := testSessionFile(t, filepath.Join(real, "sessions", pisession.EncodeCwd(work)), work, "written by a terminal pi")
	kept := testSessionFile(t, filepath.Join(demoDir, "sessions", pisession.EncodeCwd(work)), work, "started during the demo")

	if _, err := api(s.url, nil).LeaveDemo(t.Context()); err != nil {
		t.Fatalf("leave: %v", err)
	}
	testkit.Eventually(t, func() error {
		if st := status(t, s.url); st.Demo || st.AgentDir != real {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	}, 20*time.Second, "piweb to serve the user's own sessions")
	ids := map[string]bool{}
	for _, m := range apiSessions(t, s.url) {
		ids[m.ID] = true
	}
	if len(ids) != 2 || !ids[mine] || !ids[kept] {
		t.Errorf("after leaving, lists %v, want %s and %s", ids, mine, kept)
	}
	if _, err := os.Stat(filepath.Dir(demoDir)); !os.IsNotExist(err) {
		t.Errorf("the demo folder stays: %v", err)
	}
	// Outside the demo there is nothing to leave.
	_, err := api(s.url, nil).LeaveDemo(t.Context())
	if st := status(t, s.url); err != nil || st.Demo || st.AgentDir != real {
		t.Errorf("leave outside the demo: %v, %+v", err, st)
	}
	if code := s.stop(); code != 0 {
		t.Errorf("exit %d: %s", code, s.stderr)
	}
}

// testSessionFile writes a one-message session of cwd into dir and
// returns its id.
func testSessionFile(t *testing.T, dir, cwd, text string) string {
	t.Helper()
	id := pisession.NewSessionID()
	data := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}
{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1764583201000}}
`, id, cwd, text)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := sessionstore.NewFile(dir, []byte(data)); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestServeLeaveDemoStaysSignedIn: where sign-in is required, a browser
// signed in to the demo is still signed in once piweb serves the user's
// own sessions (the servers share their sign-in keys).
func TestServeLeaveDemoStaysSignedIn(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	real := filepath.Join(t.TempDir(), "agent")
	s := startServeEnv(t, map[string]string{"PI_CODING_AGENT_DIR": real}, "--demo", "--addr", "127.0.0.1:0", "--token", "tok-123", "--pi", "/nonexistent/pi")
	browser := &http.Client{Jar: &cookieJar{}}
	getStatus(t, browser, s.url)
	signedIn := api(s.url, browser)
	if _, err := signedIn.LeaveDemo(t.Context()); err != nil {
		t.Fatalf("leave: %v", err)
	}
	testkit.Eventually(t, func() error {
		st, err := signedIn.Status(t.Context())
		if err != nil || st.Demo {
			return fmt.Errorf("status %v, demo %v", err, st.Demo)
		}
		return nil
	}, 20*time.Second, "the signed-in browser to reach the user's own sessions")
}

// TestServeNoDemoAfterLeaving: a user who left the demo gets the empty
// app on the next start with no sessions, not the demo again (issue
// 25.8).
func TestServeNoDemoAfterLeaving(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	env := map[string]string{"PI_CODING_AGENT_DIR": filepath.Join(t.TempDir(), "agent"), "HOME": t.TempDir()}
	s := startServeEnv(t, env, "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
	if st := status(t, s.url); !st.Demo {
		t.Fatalf("no demo on the first start: %+v", st)
	}
	if _, err := api(s.url, nil).LeaveDemo(t.Context()); err != nil {
		t.Fatalf("leave: %v", err)
	}
	testkit.Eventually(t, func() error {
		if st := status(t, s.url); st.Demo {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	}, 20*time.Second, "piweb to leave the demo")
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr)
	}
	again := startServeEnv(t, env, "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
	if st := status(t, again.url); st.Demo {
		t.Errorf("the demo again after leaving it: %+v", st)
	}
	if code := again.stop(); code != 0 {
		t.Errorf("exit %d: %s", code, again.stderr)
	}
}
