package server

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"piweb/internal/app"
	"piweb/internal/terminal"
	"piweb/internal/testkit"
)

// testTerminals is a terminal manager running /bin/sh with a known
// prompt, closed when the test ends.
func testTerminals(t testing.TB) *terminal.Manager {
	m := terminal.New(terminal.Options{Shell: "/bin/sh", Env: []string{"PATH=/usr/bin:/bin", "PS1=$ ", "HOME=/tmp"},
		KillAfter: 300 * time.Millisecond})
	t.Cleanup(m.Close)
	return m
}

// termClient is a test's WebSocket to a terminal, collecting its output.
type termClient struct {
	testkit.Output
	c    *websocket.Conn
	exit atomic.Bool
	done chan struct{}
}

func dialTerminal(t testing.TB, url string, hdr http.Header) (*termClient, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		return nil, resp, err
	}
	tc := &termClient{c: c, done: make(chan struct{})}
	go tc.read()
	t.Cleanup(func() { c.CloseNow() })
	return tc, resp, nil
}

func (tc *termClient) read() {
	defer close(tc.done)
	for {
		typ, p, err := tc.c.Read(context.Background())
		if err != nil {
			return
		}
		if typ == websocket.MessageText && strings.Contains(string(p), `"exit"`) {
			tc.exit.Store(true)
		} else {
			tc.Write(p)
		}
	}
}

func (tc *termClient) send(s string) error {
	return tc.c.Write(context.Background(), websocket.MessageBinary, []byte(s))
}

func wsURL(httpURL string) string { return "ws" + strings.TrimPrefix(httpURL, "http") }

// TestTerminalAPI: a POST starts a shell in the session's folder; the
// WebSocket carries keystrokes, output and resizes; a second connection
// (a page reload) gets the scrollback; DELETE ends the shell and the
// socket says so.
func TestTerminalAPI(t *testing.T) {
	r := newRig(t, Options{}, app.Config{Terminals: testTerminals(t)})
	cwd := t.TempDir()
	id := r.sessionIn(cwd)
	api, ctx := r.api(), t.Context()
	if got, err := api.Terminals(ctx, id); err != nil || !got.Enabled || len(got.Terminals) != 0 {
		t.Fatalf("list before any start: %+v, %v", got, err)
	}
	info, err := api.StartTerminal(ctx, id, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	tid, pid := info.ID, info.PID
	origin := http.Header{"Origin": {r.ts.URL}}
	tc, _, err := dialTerminal(t, api.TerminalSocketURL(id, tid), origin)
	if err != nil {
		t.Fatal(err)
	}
	tc.send("echo hi-$((40+2)); pwd\n")
	testkit.Eventually(t, tc.Has("hi-42"), 10*time.Second, "echo's output")
	real, _ := filepath.EvalSymlinks(cwd)
	testkit.Eventually(t, tc.Has(real), 10*time.Second, "the shell in the session's folder")
	tc.c.Write(context.Background(), websocket.MessageText, []byte(`{"type":"resize","cols":101,"rows":31}`))
	tc.send("stty size\n")
	testkit.Eventually(t, tc.Has("31 101"), 10*time.Second, "the resized terminal")

	again, _, err := dialTerminal(t, api.TerminalSocketURL(id, tid), origin)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, again.Has("hi-42"), 10*time.Second, "the scrollback after a reconnect")
	if got, err := api.Terminals(ctx, id); err != nil || len(got.Terminals) != 1 {
		t.Errorf("list: %d terminals, want 1 (%v)", len(got.Terminals), err)
	}

	if err := api.CloseTerminal(ctx, id, tid); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pid, 0) == nil && !zombie(pid) {
		t.Errorf("shell %d alive after DELETE", pid)
	}
	select {
	case <-again.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the socket stayed open after the shell ended")
	}
	if !again.exit.Load() {
		t.Error("the socket ended without saying the shell exited")
	}
	wantErr(t, "closing it again", api.CloseTerminal(ctx, id, tid), 404, "")
}

// TestTerminalSocketRefusals: the upgrade is checked like every request
// (Host, fetch metadata, sign-in) and, though a GET, for its Origin; a GET
// never starts a shell; with terminals off nothing starts.
func TestTerminalSocketRefusals(t *testing.T) {
	terms := testTerminals(t)
	r := newRig(t, Options{}, app.Config{Terminals: terms})
	id := r.sessionIn(t.TempDir())
	api, ctx := r.api(), t.Context()
	info, err := api.StartTerminal(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	tid := info.ID
	sock := api.TerminalSocketURL(id, tid)
	for _, c := range []struct {
		name string
		url  string
		hdr  http.Header
		want int
	}{
		{"other origin", sock, http.Header{"Origin": {"http://evil.example"}}, 403},
		{"other port", sock, http.Header{"Origin": {"http://127.0.0.1:1"}}, 403},
		{"cross-site page", sock, http.Header{"Origin": {r.ts.URL}, "Sec-Fetch-Site": {"cross-site"}}, 403},
		{"no such terminal", api.TerminalSocketURL(id, "nope"), http.Header{"Origin": {r.ts.URL}}, 404},
	} {
		_, resp, err := dialTerminal(t, c.url, c.hdr)
		if err == nil || resp == nil || resp.StatusCode != c.want {
			t.Errorf("%s: err %v, response %v, want status %d", c.name, err, resp, c.want)
		}
	}
	// A forged Host (DNS rebinding).
	_, err = api.Send(ctx, "GET", "/api/sessions/"+id+"/terminals/"+tid+"/socket", nil,
		http.Header{"Host": {"rebind.example"}, "Connection": {"Upgrade"}, "Upgrade": {"websocket"}})
	wantErr(t, "forged Host", err, 403, "")
	if n := len(terms.List(id)); n != 1 {
		t.Errorf("%d terminals after the refused requests, want the 1 started", n)
	}

	off := newRig(t, Options{})
	offID := off.sessionIn(t.TempDir())
	if got, err := off.api().Terminals(ctx, offID); err != nil || got.Enabled {
		t.Errorf("terminals off: list says %+v, %v", got, err)
	}
	_, err = off.api().StartTerminal(ctx, offID, 0, 0)
	wantErr(t, "terminals off: start", err, 403, "")
}

// zombie reports a process that ended and waits to be reaped.
func zombie(pid int) bool {
	b, err := readProcStat(pid)
	return err == nil && b == "Z"
}

// readProcStat returns a process's state letter from /proc.
func readProcStat(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) == 0 {
		return "", errors.New("short stat")
	}
	return f[0], nil
}

// TestTerminalsEndWhenServerStops: closing the server (piweb stopping)
// ends every shell it started.
func TestTerminalsEndWhenServerStops(t *testing.T) {
	r := newRig(t, Options{}, app.Config{Terminals: testTerminals(t)})
	id := r.sessionIn(t.TempDir())
	info, err := r.api().StartTerminal(t.Context(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	pid := info.PID
	r.srv.Close()
	r.srv.app.Close()
	if st, err := readProcStat(pid); err == nil && st != "Z" {
		t.Errorf("shell %d in state %s after the server closed", pid, st)
	}
}
