package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// piEnv is a fake server plus an agent dir, work dir and session dir.
type piEnv struct {
	srv                         *Server
	agentDir, work, sessionsDir string
}

func newPiEnv(t *testing.T) *piEnv {
	t.Helper()
	srv := New(Options{Log: testkit.Log(t)})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	e := &piEnv{srv: srv, agentDir: t.TempDir(), work: t.TempDir(), sessionsDir: t.TempDir()}
	if err := SetupAgentDir(e.agentDir, ts.URL+"/v1"); err != nil {
		t.Fatal(err)
	}
	if err := KeepRecent(e.agentDir, 10); err != nil { // a short session has something to compact
		t.Fatal(err)
	}
	return e
}

// providerError reports whether msg is pi's text for an HTTP error with
// status and message: "503 msg" from the OpenAI SDK (pi 0.73), or
// "503: {...\"message\":\"msg\"...}" with the error body (pi 1.x,
// pi-ai's formatProviderError).
func providerError(msg string, status int, message string) bool {
	if msg == fmt.Sprintf("%d %s", status, message) {
		return true
	}
	body, ok := strings.CutPrefix(msg, fmt.Sprintf("%d: ", status))
	var e struct{ Message string }
	return ok && json.Unmarshal([]byte(body), &e) == nil && e.Message == message
}

func (e *piEnv) command(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(pitest.PiBin(t), append([]string{"--session-dir", e.sessionsDir, "--no-context-files"}, args...)...)
	cmd.Dir = e.work
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+e.agentDir, "PI_OFFLINE=1")
	return cmd
}

// event is one JSON line from pi's stdout.
type event map[string]any

func (ev event) typ() string { s, _ := ev["type"].(string); return s }

// str digs a string out of nested objects: ev.str("message", "stopReason").
func (ev event) str(path ...string) string {
	var v any = map[string]any(ev)
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// rpcPi drives one `pi --mode rpc` process, its lines as events.
type rpcPi struct {
	*pitest.RPC
	t *testing.T
}

func (e *piEnv) startRPC(t *testing.T, args ...string) *rpcPi {
	t.Helper()
	return &rpcPi{RPC: pitest.StartRPC(t, e.command(t, append([]string{"--mode", "rpc"}, args...)...)), t: t}
}

// send writes a command with a fresh id and returns the id.
func (p *rpcPi) send(cmd map[string]any) string { p.t.Helper(); return p.Send(cmd) }

// until collects events up to and including the first one matching stop.
func (p *rpcPi) until(timeout time.Duration, stop func(event) bool) []event {
	p.t.Helper()
	var got []event
	for _, ev := range p.Until(timeout, func(m map[string]any) bool { return stop(m) }) {
		got = append(got, ev)
	}
	return got
}

// call sends a command and waits for its response.
func (p *rpcPi) call(cmd map[string]any) event {
	p.t.Helper()
	return p.Call(cmd, 10*time.Second)
}

// prompt sends a prompt and returns every event up to the agent_end that
// satisfies done (nil: the first agent_end).
func (p *rpcPi) prompt(msg string, done func(event) bool) []event {
	p.t.Helper()
	p.send(map[string]any{"type": "prompt", "message": msg})
	if done == nil {
		done = func(ev event) bool { return ev.typ() == "agent_end" }
	}
	return p.until(15*time.Second, done)
}

func types(evs []event) []string {
	var out []string
	for _, ev := range evs {
		t := ev.typ()
		if t == "message_update" {
			t += ":" + ev.str("assistantMessageEvent", "type")
		}
		out = append(out, t)
	}
	return out
}

func find(evs []event, typ string) event {
	for _, ev := range evs {
		if ev.typ() == typ {
			return ev
		}
	}
	return nil
}

// sessionEntries reads the single session file pi wrote in e.sessionsDir.
func (e *piEnv) sessionEntries(t *testing.T) []event {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.sessionsDir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	b := testkit.ReadFile(t, files[0])
	var out []event
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("bad session line %q: %v", line, err)
		}
		out = append(out, ev)
	}
	return out
}
