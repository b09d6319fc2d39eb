package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startServe runs `piweb args...` and returns the URL it printed, a
// function that stops it and returns its exit status.
func startServe(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	getenv := func(k string) string {
		if k == "HOME" || k == "XDG_CACHE_HOME" {
			return t.TempDir()
		}
		return ""
	}
	go func() {
		code <- run(ctx, args, getenv, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	urlRE := regexp.MustCompile(`on (http://\S+)`)
	sc := bufio.NewScanner(pr)
	found := make(chan string, 1)
	go func() {
		for sc.Scan() {
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return u, func() int { cancel(); return <-code }
	case c := <-code:
		t.Fatalf("piweb exited with %d before serving", c)
	case <-time.After(30 * time.Second):
		t.Fatal("piweb did not start")
	}
	return "", nil
}

func TestServeLoopback(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop := startServe(t, "--addr", "127.0.0.1:0", "--agent-dir", t.TempDir(), "--pi", "/nonexistent/pi")
	resp, err := http.Get(u + "api/status")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Pi struct{ Found bool }
	}
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if resp.StatusCode != 200 || st.Pi.Found {
		t.Errorf("status %d, pi %+v", resp.StatusCode, st.Pi)
	}
	if c := stop(); c != 0 {
		t.Errorf("exit %d after shutdown", c)
	}
}

// TestServeDemoNoPi: the demo browses its sample sessions without pi.
func TestServeDemoNoPi(t *testing.T) {
	checkDemoListed(t, "--demo", "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
}

// checkDemoListed starts piweb with args and checks it lists the demo's
// sample sessions.
func checkDemoListed(t *testing.T, args ...string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop := startServe(t, args...)
	defer stop()
	resp, err := http.Get(u + "api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Sessions []any }
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if len(out.Sessions) < 3 {
		t.Errorf("lists %d sessions, want the demo's", len(out.Sessions))
	}
}

func TestServeNonLoopbackNeedsToken(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop := startServe(t, "--addr", "0.0.0.0:0", "--agent-dir", t.TempDir(), "--pi", "/nonexistent/pi")
	defer stop()
	if !strings.Contains(u, "/auth?token=") {
		t.Fatalf("no token link: %s", u)
	}
	base := u[:strings.Index(u, "auth?")]
	resp, err := http.Get(base + "api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("without token: %d", resp.StatusCode)
	}
	jar := &cookieJar{}
	c := &http.Client{Jar: jar}
	resp, err = c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = c.Get(base + "api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("after the link: %d", resp.StatusCode)
	}
}

// TestServeNoSessionsShowsDemo: a user without any pi session yet gets the
// built-in demo instead of an empty app.
func TestServeNoSessionsShowsDemo(t *testing.T) {
	checkDemoListed(t, "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
}
