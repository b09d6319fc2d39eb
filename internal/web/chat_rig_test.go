package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/client"
	"piweb/internal/fakellm"
	"piweb/internal/fakellm/fakellmtest"
	"piweb/internal/pitest"
	"piweb/internal/server"
	"piweb/internal/testkit"
)

// chatRig is the app on the real server with real pi talking to the fake
// LLM, and a browser on it. One rig serves every subtest of a test so
// that pi and Chromium start once.
type chatRig struct {
	*browser
	llm      *fakellm.Server
	agent    *agent.Service
	agentDir string
	cwd      string
	http     *httptest.Server // the app's server, for cutting connections
	clock    *rigClock        // the clock the server stamps live events with
}

// rigClock is the clock of a chat rig's event broker: real time plus what
// the test skipped, so that a test that needs time to have passed (a
// clock the page shows) moves it instead of sleeping.
type rigClock struct{ skipped atomic.Int64 }

func (c *rigClock) Now() time.Time                  { return time.Now().Add(time.Duration(c.skipped.Load())) }
func (c *rigClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Skip moves the clock d ahead at once.
func (c *rigClock) Skip(d time.Duration) { c.skipped.Add(int64(d)) }

// rigPi is the pi the chat rigs run.
var rigPi = pitest.V16

func newChatRig(t testing.TB) *chatRig { return newChatRigWith(t, agent.Config{}) }

// newChatRigWith is newChatRig with supervisor settings (Spare, as piweb
// serve has it, for the benchmarks).
func newChatRigWith(t testing.TB, cfg agent.Config) *chatRig {
	return newChatRigFull(t, cfg, fakellm.Options{})
}

// newChatRigFull is newChatRig with supervisor and fake LLM settings
// (ScriptSummaries, to hold a compaction's summary).
func newChatRigFull(t testing.TB, cfg agent.Config, llmOpts fakellm.Options) *chatRig {
	t.Helper()
	return newChatRigOn(t, rigPi, cfg, llmOpts)
}

// newPi16Rig is newChatRig on pi 1.6.0 whatever rigPi is: for the pages
// of what pi 1.x added (settings, resources, account sign-in, ...).
func newPi16Rig(t testing.TB) *chatRig {
	t.Helper()
	return newChatRigOn(t, pitest.V16, agent.Config{}, fakellm.Options{})
}

// newChatRigOn is newChatRigFull on a given pinned pi.
func newChatRigOn(t testing.TB, v pitest.Version, cfg agent.Config, llmOpts fakellm.Options) *chatRig {
	t.Helper()
	requireChromium(t)
	piBin := pitest.PiBinVersion(t, v)
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	cwd := filepath.Join(dir, "proj")
	for _, d := range []string{filepath.Join(agentDir, "sessions"), cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(cwd, "README.md"), []byte("# proj\n"), 0o644)
	installChatExtras(t, agentDir)
	llm, _ := fakellmtest.Serve(t, agentDir, llmOpts)
	if err := fakellm.KeepRecent(agentDir, 1); err != nil { // a short session has something to compact
		t.Fatal(err)
	}
	pi, err := agent.Find(context.Background(), piBin)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Base = agent.Options{Pi: pi, AgentDir: agentDir}
	clock := &rigClock{}
	if cfg.Events == nil { // on the rig's clock
		cfg.Events = agent.SharedBroker(0, clock.Now)
	}
	cfg.BridgeDir = filepath.Join(t.TempDir(), "bridge") // created private
	ag, err := agent.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, server.Options{Addr: "127.0.0.1:0", Web: Handler(false, ""), Executable: "/opt/piweb/piweb"},
		app.Config{AgentDir: agentDir, Catalog: indexCatalog(t, agentDir), Agent: ag})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	b := newBrowser(t, hs.URL)
	t.Cleanup(func() { b.noConsoleErrors(t) })
	return &chatRig{browser: b, llm: llm, agent: ag, agentDir: agentDir, cwd: cwd, http: hs, clock: clock}
}

// client is the typed client of the server's API.
func (r *chatRig) client() *client.Client { return client.New(r.base, client.Options{}) }

// create starts a session (POST /api/sessions) and answers its id; an
// error stops the test.
func (r *chatRig) create(t testing.TB, req apitype.CreateRequest) string {
	t.Helper()
	a, err := r.client().Create(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// detail is GET /api/sessions/{id}; an error stops the test.
func (r *chatRig) detail(t testing.TB, id string) apitype.SessionDetail {
	t.Helper()
	d, err := r.client().Session(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// startSession creates a session through the API and opens it.
func (r *chatRig) startSession(t testing.TB, msg string) string {
	t.Helper()
	id := r.create(t, apitype.CreateRequest{Cwd: r.cwd, Message: msg})
	r.open(t, "/s/"+id)
	return id
}

// startStreaming starts a session with msg on a fresh fake LLM whose
// first reply, longText, streams until release is called (later replies
// answer the turns after), opens it and waits until the reply's first
// word shows. Callers defer release.
func (r *chatRig) startStreaming(t testing.TB, msg string, later ...fakellm.Reply) (id string, release func()) {
	t.Helper()
	r.llm.Reset()
	reply, release := holdReply(longText)
	started := false
	defer func() {
		if !started { // a failed start leaves nothing held
			release()
		}
	}()
	r.llm.Enqueue(append([]fakellm.Reply{reply}, later...)...)
	id = r.startSession(t, msg)
	r.waitJS(t, `document.querySelector('.live-msg')?.innerText.includes('Alpha')`)
	started = true
	return id, release
}

// startAnswered starts a session with msg on a fresh fake LLM whose
// first reply is text (later replies answer the turns after), opens it
// and waits until the reply shows and pi is idle.
func (r *chatRig) startAnswered(t testing.TB, msg, text string, later ...fakellm.Reply) string {
	t.Helper()
	r.llm.Reset()
	r.llm.Enqueue(append([]fakellm.Reply{fakellm.Text(text)}, later...)...)
	id := r.startSession(t, msg)
	r.waitAnswer(t, text)
	return id
}

// exchange sends msg and waits until the reply text shows and pi is idle.
func (r *chatRig) exchange(t testing.TB, msg, text string) {
	t.Helper()
	r.send(t, msg)
	r.waitAnswer(t, text)
}

// waitAnswer waits until the conversation shows text and pi is idle.
func (r *chatRig) waitAnswer(t testing.TB, text string) {
	t.Helper()
	r.waitText(t, text)
	r.waitIdle(t)
}

// holdUntilEnd is a channel for a held reply (fakellm's WithHold) that
// the test closes to let it go on, closed when the test ends if it did not.
func holdUntilEnd(t testing.TB) chan struct{} {
	hold := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-hold:
		default:
			close(hold)
		}
	})
	return hold
}

// waitText waits until the conversation shows text; if it never does, it
// logs the page and the model's requests, to tell a view that missed an
// update from a reply that never came.
func (r *chatRig) waitText(t testing.TB, text string) {
	t.Helper()
	js := fmt.Sprintf(`(document.querySelector('.conv')||{innerText:''}).innerText.includes(%q)`, text)
	testkit.Eventually(t, func() error {
		if eval[bool](t, r.browser, js) {
			return nil
		}
		return fmt.Errorf("model requests: %s; page: %s", r.requestTexts(), eval[string](t, r.browser, `(document.querySelector('.main')||{innerText:''}).innerText`))
	}, 20*time.Second, fmt.Sprintf("the conversation to show %q", text))
}

// requestTexts lists the last user text of each model request, to tell a
// view that missed an update from a reply that never came.
func (r *chatRig) requestTexts() string {
	if r.llm == nil {
		return "none"
	}
	var out []string
	for _, q := range r.llm.Requests() {
		out = append(out, fmt.Sprintf("%q", q.LastUserText()))
	}
	return strings.Join(out, ", ")
}

// waitIdle waits until the composer offers Send again (the agent is idle).
func (r *chatRig) waitIdle(t testing.TB) {
	t.Helper()
	r.waitJS(t, `(() => { const b = document.querySelector('.composer .send'); return b && b.textContent === 'Send' && !document.querySelector('.live-msg'); })()`)
}

// send puts text into the composer and presses Enter.
func (r *chatRig) send(t testing.TB, text string) {
	t.Helper()
	r.typeIn(t, text)
	eval[bool](t, r.browser, `(document.querySelector('.composer textarea').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true})), true)`)
}

// typeIn sets the composer's text, caret at the end, as typing would.
func (r *chatRig) typeIn(t testing.TB, text string) {
	t.Helper()
	r.waitJS(t, `document.querySelector('.composer textarea')`)
	eval[bool](t, r.browser, fmt.Sprintf(`(() => {
		const ta = document.querySelector('.composer textarea');
		ta.focus();
		ta.value = %q;
		ta.dispatchEvent(new Event('input', {bubbles: true}));
		return true; })()`, text))
	// Let Preact apply the input before the next key.
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.composer textarea')?.value === %q`, text))
}

// key presses a key (chromedp/kb names) in the focused element as a
// keyboard does: the character comes with the keydown, so a page that
// prevents the keydown types nothing (chromedp.KeyEvent sends a separate
// char event that types regardless, e.g. a newline for Enter).
func (r *chatRig) key(t testing.TB, k string) {
	t.Helper()
	for _, c := range k {
		evs := kb.Encode(c)
		var down, up *input.DispatchKeyEventParams
		text := ""
		for _, e := range evs {
			switch e.Type {
			case kb.KeyDown:
				down = e
			case kb.KeyUp:
				up = e
			case kb.KeyChar:
				text = e.Text
			}
		}
		down.Text, down.UnmodifiedText = text, text
		r.run(t, cdpCall(input.DispatchKeyEvent, *down), cdpCall(input.DispatchKeyEvent, *up))
	}
}

// choose sets a select element's value as a user would.
func (r *chatRig) choose(t testing.TB, sel, value string) {
	t.Helper()
	r.waitJS(t, fmt.Sprintf(`document.querySelector(%q + ' option[value="' + %q + '"]')`, sel, value))
	eval[bool](t, r.browser, fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, sel, value))
}

// command sends one command to the session's pi through the API.
func (r *chatRig) command(t testing.TB, id string, cmd map[string]any) map[string]any {
	t.Helper()
	a, err := r.client().Command(t.Context(), id, cmd)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	json.Unmarshal(a.Data, &data)
	return data
}

// countText counts occurrences of s in the conversation.
func (r *chatRig) countText(t testing.TB, s string) int {
	t.Helper()
	return eval[int](t, r.browser, fmt.Sprintf(`document.querySelector('.conv').innerText.split(%q).length - 1`, s))
}

func waitFor(t testing.TB, what string, f func() bool) {
	t.Helper()
	testkit.Eventually(t, f, 20*time.Second, what)
}

// click reuses the reading tests' helper.
func (r *chatRig) click(t testing.TB, sel string) {
	(&rig{browser: r.browser}).click(t.(*testing.T), sel)
}

// installChatExtras gives pi what the composer completes besides files: a
// prompt template, a skill and an extension whose commands open dialogs
// (testdata/chat).
func installChatExtras(t testing.TB, agentDir string) {
	t.Helper()
	for src, dst := range map[string]string{
		"piweb-test-ext.ts": "extensions/piweb-test-ext.ts",
		"review.md":         "prompts/review.md",
		"tidy/SKILL.md":     "skills/tidy/SKILL.md",
	} {
		b := testkit.ReadFile(t, filepath.Join("testdata", "chat", src))
		dst = filepath.Join(agentDir, dst)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
