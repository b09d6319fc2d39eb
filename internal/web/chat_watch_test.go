package web

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"piweb/internal/fakellm"
)

// recordLive notes every text the phase line, the live thinking label and
// the live tool durations take, since most last less than a poll.
const recordLive = `(() => {
  window.__seen = new Set();
  const parts = {phase: '.phase-line', thinking: '.thinking.live summary', tool: '.tool .tool-dur'};
  const note = () => { for (const [k, sel] of Object.entries(parts)) document.querySelectorAll(sel).forEach((e) => window.__seen.add(k + ': ' + e.textContent)); };
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true});
  return true; })()`

// testPhases: the phase line says what pi is doing (waiting for the model,
// thinking, running a tool), and thinking and tools show how long they
// take, while pi works. The session's model must be the thinker.
func testPhases(t *testing.T, r *chatRig, id string) {
	if m, _ := r.command(t, id, map[string]any{"type": "get_state"})["model"].(map[string]any); m["id"] != fakellm.ThinkerID {
		t.Fatalf("the session's model is %v, not the thinker (set by testModelAndImages)", m["id"])
	}
	eval[bool](t, r.browser, recordLive)

	hold := holdUntilEnd(t)
	think := fakellm.Reply{Thinking: "Pondering the request slowly and with care.", Calls: []fakellm.Call{fakellm.Bash("sleep 1.2; echo slept")},
		Chunks: 4, Latency: 800 * time.Millisecond, Hold: hold, HoldAfter: 2}
	r.llm.Enqueue(think, fakellm.Text("Phases done."))
	r.send(t, "think, then run a tool")
	r.waitJS(t, `document.querySelector('.phase-line')?.innerText.includes('Thinking')`)
	r.waitJS(t, `document.querySelector('.thinking.live summary')?.textContent.startsWith('Thinking…')`)
	close(hold)
	r.waitAnswer(t, "Phases done.")
	seen := eval[[]string](t, r.browser, `[...window.__seen]`)
	for _, want := range []string{
		`^phase: Waiting for the model…$`,
		`^phase: Thinking…$`,
		`^phase: Running bash…$`,
		`^thinking: Thought for \d+\.\d s$`,
		`^tool: running \d+\.\d s$`,
		`^tool: done in ([1-9]|\d\d+)\.\d s$`, // the tool sleeps 1.2 s
	} {
		re := regexp.MustCompile(want)
		if !slices.ContainsFunc(seen, re.MatchString) {
			t.Errorf("never shown: %s", want)
		}
	}
	if t.Failed() {
		t.Logf("seen: %q", seen)
	}
	// The run ends in its call's one card: the output and how long it took.
	cards := callCards("sleep 1.2; echo slept")
	r.waitJS(t, cards+`.length === 1 && `+cards+`[0].querySelector('.out:not(.live-out)')?.textContent.includes('slept')`)
	if d := eval[string](t, r.browser, cards+`[0].querySelector('.tool-dur')?.textContent || ''`); !regexp.MustCompile(`^done in ([1-9]|\d\d+)\.\d s$`).MatchString(d) {
		t.Errorf("the finished call's card shows %q for its duration", d)
	}
}

// testToolPresets: the new-session dialog's tool preset becomes pi's tool
// set, as the model's first request shows.
func testToolPresets(t *testing.T, r *chatRig) {
	want := map[string][]string{
		"none":      nil,
		"read-only": {"find", "grep", "ls", "read"},
		"default":   {"bash", "edit", "read", "write"},
		"all":       {"bash", "edit", "find", "grep", "ls", "read", "write"},
	}
	for _, preset := range []string{"read-only", "none", "all", "default"} {
		t.Run(preset, func(t *testing.T) {
			r.llm.Reset()
			answer := "Tools of " + preset + "."
			r.llm.Enqueue(fakellm.Text(answer))
			r.open(t, "/")
			r.click(t, ".new-session")
			r.waitJS(t, `document.querySelector('.new-session-dialog')`)
			fillNewSession(t, r, "cwd", r.cwd)
			fillNewSession(t, r, "message", "which tools do you have?")
			r.choose(t, ".new-session-dialog [name=tools]", preset)
			r.click(t, `.new-session-dialog [type=submit]`)
			r.waitText(t, answer)
			got := r.llm.LastRequest().ToolNames()
			slices.Sort(got)
			if !slices.Equal(got, want[preset]) {
				t.Errorf("tools %v, want %v", got, want[preset])
			}
			r.waitIdle(t)
		})
	}
}

func fillNewSession(t *testing.T, r *chatRig, name, v string) {
	t.Helper()
	eval[bool](t, r.browser, fmt.Sprintf(`(() => { const e = document.querySelector('.new-session-dialog [name=%s]'); e.value = %q; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, name, v))
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.new-session-dialog [name=%s]').value === %q`, name, v))
}

// stubAlerts replaces the browser's Notification (granted) and
// AudioContext with recorders, since headless Chromium shows and plays
// nothing.
const stubAlerts = `(() => {
  window.__notes = []; window.__beeps = 0;
  window.Notification = class { constructor(title, o) { window.__notes.push(title + ': ' + (o && o.body || '')); } close() {} };
  window.Notification.permission = 'granted';
  window.Notification.requestPermission = async () => 'granted';
  window.AudioContext = class { constructor() { this.state = 'running'; this.currentTime = 0; this.destination = {}; }
    resume() {} createGain() { return { gain: {}, connect() {} }; }
    createOscillator() { return { frequency: {}, connect() {}, start() { window.__beeps++; }, stop() {} }; } };
  return true; })()`

// testAlerts: with alerts on, a turn that ends in a session the user is
// not looking at beeps and notifies; one that ends in view does not.
func testAlerts(t *testing.T, r *chatRig) {
	id, release := r.startStreaming(t, "alert me when done")
	defer release()
	eval[bool](t, r.browser, stubAlerts)
	r.choose(t, ".alert-select", "both")
	r.waitJS(t, `localStorage.getItem('piweb.alert') === 'both'`)
	// Leave for the home page without reloading, as a click in the sidebar would.
	eval[bool](t, r.browser, `(history.pushState(null, '', '/'), dispatchEvent(new PopStateEvent('popstate')), true)`)
	r.waitJS(t, `document.querySelector('.home')`)
	release()
	r.waitJS(t, `window.__notes.length === 1 && window.__beeps === 1`)
	if n := eval[string](t, r.browser, `window.__notes[0]`); !strings.Contains(n, "alert me when done") {
		t.Errorf("notification %q does not name the session", n)
	}
	eval[bool](t, r.browser, fmt.Sprintf(`(history.pushState(null, '', '/s/%s'), dispatchEvent(new PopStateEvent('popstate')), true)`, id))
	r.waitText(t, "tango.")
	r.llm.Enqueue(fakellm.Text("Seen here."))
	r.exchange(t, "one more", "Seen here.")
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.sess[data-id=%q]') && !document.querySelector('.sess[data-id=%q] .run-dot')`, id, id))
	if n := eval[int](t, r.browser, `window.__notes.length + window.__beeps`); n != 2 {
		t.Errorf("alerted for a turn that ended in view (%d alerts)", n)
	}
	eval[bool](t, r.browser, `(localStorage.removeItem('piweb.alert'), true)`)
}
