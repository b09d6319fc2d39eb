package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/fakellm"
	"piweb/internal/pitest"
	"piweb/internal/server"
)

// chatRig is the app on the real server with real pi talking to the fake
// LLM, and a browser on it. One rig serves every subtest of a test so
// that pi and Chromium start once.
type chatRig struct {
	*browser
	llm      *fakellm.Server
	agentDir string
	cwd      string
}

func newChatRig(t testing.TB) *chatRig {
	t.Helper()
	requireChromium(t)
	piBin := pitest.PiBin(t)
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	cwd := filepath.Join(dir, "proj")
	for _, d := range []string{filepath.Join(agentDir, "sessions"), cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(cwd, "README.md"), []byte("# proj\n"), 0o644)
	llm := fakellm.New(fakellm.Options{})
	ts := httptest.NewServer(llm)
	t.Cleanup(ts.Close)
	if err := fakellm.SetupAgentDir(agentDir, ts.URL+"/v1"); err != nil {
		t.Fatal(err)
	}
	pi, err := agent.Find(context.Background(), piBin)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := server.NewPiAgent(agent.Config{Base: agent.Options{Pi: pi, AgentDir: agentDir}, BridgeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{AgentDir: agentDir, Addr: "127.0.0.1:0", Catalog: indexCatalog(t, agentDir),
		Agent: ag, Web: Handler(false, "")})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	b := newBrowser(t, hs.URL)
	t.Cleanup(func() { b.noConsoleErrors(t) })
	return &chatRig{browser: b, llm: llm, agentDir: agentDir, cwd: cwd}
}

// api calls the server's JSON API directly.
func (r *chatRig) api(t testing.TB, method, path string, body any) map[string]any {
	t.Helper()
	var rd *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("{}")
	}
	req, _ := http.NewRequest(method, r.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	if res.StatusCode != 200 {
		t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, out)
	}
	return out
}

// startSession creates a session through the API and opens it.
func (r *chatRig) startSession(t testing.TB, msg string) string {
	t.Helper()
	out := r.api(t, "POST", "/api/sessions", map[string]any{"cwd": r.cwd, "message": msg})
	id := out["id"].(string)
	r.open(t, "/s/"+id)
	return id
}

// waitText waits until the conversation shows text; if it never does, it
// logs the page and the model's requests, to tell a view that missed an
// update from a reply that never came.
func (r *chatRig) waitText(t testing.TB, text string) {
	t.Helper()
	js := fmt.Sprintf(`(document.querySelector('.conv')||{innerText:''}).innerText.includes(%q)`, text)
	deadline := time.Now().Add(20 * time.Second)
	for !eval[bool](t, r.browser, js) {
		if time.Now().After(deadline) {
			if r.llm != nil {
				for _, q := range r.llm.Requests() {
					t.Logf("model request: %q", q.LastUserText())
				}
			}
			t.Fatalf("%q never shown; page: %s", text, eval[string](t, r.browser, `(document.querySelector('.main')||{innerText:''}).innerText`))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitIdle waits until the composer offers Send again (the agent is idle).
func (r *chatRig) waitIdle(t testing.TB) {
	t.Helper()
	r.waitJS(t, `(() => { const b = document.querySelector('.composer .send'); return b && b.textContent === 'Send' && !document.querySelector('.live-msg'); })()`)
}

// type puts text into the composer and presses Enter.
func (r *chatRig) send(t testing.TB, text string) {
	t.Helper()
	r.waitJS(t, `document.querySelector('.composer textarea')`)
	eval[bool](t, r.browser, fmt.Sprintf(`(() => {
		const ta = document.querySelector('.composer textarea');
		ta.focus();
		ta.value = %q;
		ta.dispatchEvent(new Event('input', {bubbles: true}));
		return true; })()`, text))
	// Let Preact apply the input before the key.
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.composer textarea')?.value === %q`, text))
	eval[bool](t, r.browser, `(document.querySelector('.composer textarea').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true})), true)`)
}

// countText counts occurrences of s in the conversation.
func (r *chatRig) countText(t testing.TB, s string) int {
	t.Helper()
	return eval[int](t, r.browser, fmt.Sprintf(`document.querySelector('.conv').innerText.split(%q).length - 1`, s))
}

func waitFor(t testing.TB, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// click reuses the reading tests' helper.
func (r *chatRig) click(t testing.TB, sel string) {
	(&rig{browser: r.browser}).click(t.(*testing.T), sel)
}
