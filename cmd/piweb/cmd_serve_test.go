package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"piweb/internal/client"
	"piweb/internal/testkit"
)

// startServe runs `piweb args...` and returns the URL it printed, a
// function that stops it and returns its exit status, and the lines it
// prints after the URL.
func startServe(t *testing.T, args ...string) (string, func() int, <-chan string) {
	t.Helper()
	s := startServeEnv(t, nil, args...)
	return s.url, s.stop, s.later
}

// serveRun is a piweb serve running in the test.
type serveRun struct {
	url    string
	stop   func() int    // stops piweb (once) and returns its exit status
	later  <-chan string // stdout lines after the serving line
	before []string      // stdout lines before it
	stderr *testkit.Output
}

// startServeEnv is startServe with an environment: env's values, and
// fresh temporary folders for HOME and XDG_CACHE_HOME unless env sets them.
func startServeEnv(t *testing.T, env map[string]string, args ...string) *serveRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	home, cache := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		if v, set := env[k]; set {
			return v
		}
		switch k {
		case "HOME":
			return home
		case "XDG_CACHE_HOME":
			return cache
		}
		return ""
	}
	run_ := &serveRun{stderr: &testkit.Output{}}
	go func() {
		code <- run(ctx, args, getenv, strings.NewReader(""), pw, run_.stderr)
		pw.Close()
	}()
	urlRE := regexp.MustCompile(`on (http://\S+)`)
	sc := bufio.NewScanner(pr)
	found := make(chan string, 1)
	later := make(chan string, 100)
	var before []string
	go func() {
		served := false
		for sc.Scan() {
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil && !served {
				served = true
				found <- m[1]
			} else if served {
				select {
				case later <- sc.Text():
				default:
				}
			} else {
				before = append(before, sc.Text())
			}
		}
	}()
	var once sync.Once
	var status int
	stop := func() int {
		once.Do(func() { cancel(); status = <-code })
		return status
	}
	select {
	case u := <-found:
		run_.url, run_.stop, run_.later, run_.before = u, stop, later, before
		t.Cleanup(func() { stop() })
		return run_
	case c := <-code:
		t.Fatalf("piweb exited with %d before serving: %s", c, run_.stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("piweb did not start")
	}
	return nil
}

func TestServeLoopback(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop, _ := startServe(t, "--addr", "127.0.0.1:0", "--agent-dir", t.TempDir(), "--pi", "/nonexistent/pi")
	if st, err := api(u, nil).Status(t.Context()); err != nil || st.Pi.Found {
		t.Errorf("status %v, pi %+v", err, st.Pi)
	}
	if c := stop(); c != 0 {
		t.Errorf("exit %d after shutdown", c)
	}
}

// checkDemoListed starts piweb with args and checks it lists the demo's
// sample sessions.
func checkDemoListed(t *testing.T, args ...string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop, _ := startServe(t, args...)
	defer stop()
	if n := len(apiSessions(t, u)); n < 3 {
		t.Errorf("lists %d sessions, want the demo's", n)
	}
}

// TestServeNonLoopbackNeedsToken: beyond loopback piweb prints a one-time
// sign-in link; it signs in one browser once, and piweb then prints a new
// one for the next browser.
func TestServeNonLoopbackNeedsToken(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop, lines := startServe(t, "--addr", "0.0.0.0:0", "--agent-dir", t.TempDir(), "--pi", "/nonexistent/pi")
	defer stop()
	if !strings.Contains(u, "/auth?token=") {
		t.Fatalf("no sign-in link: %s", u)
	}
	if got := listStatus(t, api(u, nil)); got != 401 {
		t.Errorf("without signing in: %d", got)
	}
	browser := &http.Client{Jar: &cookieJar{}}
	getStatus(t, browser, u)
	if got := listStatus(t, api(u, browser)); got != 200 {
		t.Errorf("after the link: %d", got)
	}
	if got := getStatus(t, &http.Client{Jar: &cookieJar{}}, u); got != 401 {
		t.Errorf("the link used a second time: %d", got)
	}
	link := regexp.MustCompile(`http://\S+`)
	next := link.FindString(testkit.Await(t, lines, 10*time.Second, "a new link printed after the first was used", link.MatchString))
	second := &http.Client{Jar: &cookieJar{}}
	getStatus(t, second, next)
	if got := listStatus(t, api(u, second)); got != 200 || next == u {
		t.Errorf("the new link %q: %d", next, got)
	}
}

// TestServeHostFlag: --host adds a name to the Host allow-list; other
// names are still refused (DNS rebinding).
func TestServeHostFlag(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop, _ := startServe(t, "--addr", "127.0.0.1:0", "--host", "piweb.example", "--host", "Other.Example:8080",
		"--agent-dir", t.TempDir(), "--pi", "/nonexistent/pi")
	defer stop()
	for host, want := range map[string]int{"piweb.example": 200, "piweb.example:30141": 200,
		"other.example": 200, "evil.example": 403, "piweb.example.evil.example": 403} {
		_, err := client.New(u, client.Options{Header: http.Header{"Host": {host}}}).Status(t.Context())
		if got := statusOf(t, err); got != want {
			t.Errorf("Host %s: status %d, want %d", host, got, want)
		}
	}
}

// api is a client of the piweb whose printed URL is u (a sign-in link's
// path is dropped), through hc (nil: http.DefaultClient): a browser's
// cookie jar, say.
func api(u string, hc *http.Client) *client.Client {
	if i := strings.Index(u, "auth?"); i >= 0 {
		u = u[:i]
	}
	return client.New(u, client.Options{HTTPClient: hc})
}

// statusOf is the status of an answer that was err: 200 for none, the
// error answer's status, and a failure of the request stops the test.
func statusOf(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 200
	}
	if s := client.StatusOf(err); s != 0 {
		return s
	}
	t.Fatal(err)
	return 0
}

// listStatus is the status of GET /api/sessions through c.
func listStatus(t *testing.T, c *client.Client) int {
	t.Helper()
	_, err := c.Sessions(t.Context(), client.ListOptions{})
	return statusOf(t, err)
}

// getStatus GETs url with c and returns the status: a browser opening a
// sign-in link.
func getStatus(t *testing.T, c *http.Client, url string) int {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeNoSessionsShowsDemo: a user without any pi session yet gets the
// built-in demo instead of an empty app.
func TestServeNoSessionsShowsDemo(t *testing.T) {
	checkDemoListed(t, "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
}
