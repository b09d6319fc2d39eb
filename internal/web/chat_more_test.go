package web

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// testRetryCompactOutside: a retry banner while the retried attempt
// streams, manual compaction with instructions, two tabs on one session
// and the outside-change banner.
func testRetryCompactOutside(t *testing.T, r *chatRig) {
	id := r.startAnswered(t, "retry and compact", "Ready.")

	t.Run("retry", func(t *testing.T) {
		reply, release := holdReply(longText)
		defer release()
		r.llm.Enqueue(fakellm.Error(500, "upstream exploded"), reply)
		r.send(t, "please retry")
		r.waitJS(t, `document.querySelector('.retry-banner')?.innerText.includes('attempt 1')`)
		release()
		r.waitAnswer(t, "tango.")
		r.waitJS(t, `!document.querySelector('.retry-banner')`)
	})
	t.Run("two tabs", func(t *testing.T) {
		b2 := newBrowser(t, r.base) // a second Chromium: a background tab would not draw
		b2.open(t, "/s/"+id)
		r2 := &chatRig{browser: b2, llm: r.llm}
		r2.waitText(t, "tango.")
		r.llm.Enqueue(fakellm.Text("Seen in both tabs."))
		r2.send(t, "from the second tab")
		r2.waitText(t, "Seen in both tabs.")
		r.waitAnswer(t, "Seen in both tabs.")
		if n := r.countText(t, "Seen in both tabs."); n != 1 {
			t.Errorf("first tab shows the answer %d times", n)
		}
	})
	t.Run("outside change", func(t *testing.T) {
		d := r.detail(t, id)
		path, leaf := d.Session.Path, *d.Leaf
		testkit.AppendFile(t, path, fmt.Sprintf(`{"type":"session_info","id":"0badcafe","parentId":%q,"timestamp":"2026-12-02T16:00:00.000Z","name":"renamed in a terminal"}`+"\n", leaf))
		r.waitJS(t, `document.querySelector('.outside-banner')`)
		// The page already shows the terminal's entry: the banner asks no reload.
		if txt := eval[string](t, r.browser, `document.querySelector('.outside-banner').innerText`); strings.Contains(txt, "Reload") {
			t.Errorf("the outside-change banner asks to reload what is shown: %q", txt)
		}
		// The page shows the file as it is now (the terminal's entry came in
		// live), so a message sent on that leaf is accepted: pi reopens the
		// file and goes on from it (issue 14.1).
		r.llm.Enqueue(fakellm.Text("Answered after the outside change."))
		r.exchange(t, "from the leaf the page shows", "Answered after the outside change.")
		if eval[bool](t, r.browser, `!!document.querySelector('.outside-banner')`) {
			r.click(t, ".outside-banner .btn")
		}
		r.waitJS(t, `!document.querySelector('.outside-banner')`)
	})
	t.Run("compact", func(t *testing.T) {
		r.click(t, ".chat-controls .act-compact")
		r.waitJS(t, `document.querySelector('.compact-instructions')`)
		eval[bool](t, r.browser, `(() => { const i = document.querySelector('.compact-instructions'); i.value = 'keep the names'; i.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
		r.waitJS(t, `document.querySelector('.compact-instructions').value === 'keep the names'`)
		r.click(t, ".compact-go")
		r.waitJS(t, `document.querySelector('.conv [data-role=compactionSummary]')`)
		// The instructions reached pi's summary request.
		if !slices.ContainsFunc(r.llm.Requests(), func(q *fakellm.Request) bool {
			return q.Kind() == fakellm.KindCompaction && strings.Contains(q.LastUserText(), "keep the names")
		}) {
			t.Error("no compaction request carries the instructions")
		}
	})
}

// TestChatPiMissing: without pi the conversation still reads, and sending
// says how to install pi.
func TestChatPiMissing(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newRig(t)
	r.open(t, "/s/"+basicID)
	cr := &chatRig{browser: r.browser}
	// The page says at once that pi is missing, how to install it, what it
	// needs and which versions piweb supports (issue 12.7).
	r.waitJS(t, `document.querySelector('.pi-missing')`)
	for _, want := range []string{"npm install -g @earendil-works/pi-coding-agent", "Node 22.19", "pi 0.73 through 1.6"} {
		if got := eval[string](t, r.browser, `document.querySelector('.pi-missing').innerText`); !strings.Contains(got, want) {
			t.Errorf("pi missing banner %q lacks %q", got, want)
		}
	}
	// The text box says so too, not "Message pi…".
	r.waitJS(t, `document.querySelector('.composer textarea').placeholder === 'Chatting needs pi (see above)'`)
	cr.send(t, "hello?")
	r.waitJS(t, `document.querySelector('.inline-error')?.innerText.includes('npm install -g @earendil-works/pi-coding-agent')`)
	r.waitJS(t, `document.querySelector('.inline-error')?.innerText.includes('Node >= 22.19')`)
	r.expectConsole("status of 503")
}

// expectConsole waits for a console error containing s (a refused request
// the test caused on purpose; Chromium logs every failed fetch, and the
// log may arrive after the page handled the failure), then drops it.
func (b *browser) expectConsole(s string) {
	deadline := time.Now().Add(10 * time.Second)
	for !b.logged(s) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.errors[:0]
	for _, e := range b.errors {
		if !strings.Contains(e, s) {
			kept = append(kept, e)
		}
	}
	b.errors = kept
}

// testNewSession: the dialog offers the recent projects (the newest
// filled in), fits a phone, refuses a relative path, then starts a session
// in the typed cwd with the chosen model and thinking level, and opens it.
func testNewSession(t *testing.T, r *chatRig) {
	r.llm.Reset()
	r.llm.Enqueue(fakellm.Text("Hello from a new session."))
	r.open(t, "/")
	r.click(t, ".new-session")
	r.waitJS(t, `document.querySelector('.new-session-dialog')`)
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.new-session-dialog [name=cwd]').value === %q && document.querySelector('#ns-projects option[value=%q]')`, r.cwd, r.cwd))
	r.run(t, chromedp.EmulateViewport(375, 800))
	fitsPhone(t, r.browser, "new-session dialog")
	if small := eval[string](t, r.browser, smallTargetsJS); small != "" {
		t.Errorf("new-session dialog: touch targets under 32 px high: %s", small)
	}
	r.run(t, chromedp.EmulateViewport(1280, 800))
	fill := func(name, v string) {
		eval[bool](t, r.browser, fmt.Sprintf(`(() => { const e = document.querySelector('.new-session-dialog [name=%s]'); e.value = %q; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`, name, v))
		r.waitJS(t, fmt.Sprintf(`document.querySelector('.new-session-dialog [name=%s]').value === %q`, name, v))
	}
	fill("cwd", "relative/path")
	fill("message", "hi there")
	r.click(t, `.new-session-dialog [type=submit]`)
	r.waitJS(t, `document.querySelector('.ns-error')?.innerText.includes('absolute')`)
	// A folder that does not exist is said before Start, which waits.
	fill("cwd", r.cwd+"/no-such-folder")
	r.waitJS(t, `document.querySelector('.ns-folder-missing') && document.querySelector('.new-session-dialog [type=submit]').disabled`)
	fill("cwd", r.cwd)
	r.choose(t, ".new-session-dialog [name=model]", fakellm.Provider+"/"+fakellm.ThinkerID)
	r.choose(t, ".new-session-dialog [name=thinkingLevel]", "high")
	r.click(t, `.new-session-dialog [type=submit]`)
	r.waitJS(t, `location.pathname.startsWith('/s/')`)
	r.waitAnswer(t, "Hello from a new session.")
	if q := r.llm.LastRequest(); q.Model != fakellm.ThinkerID || q.ReasoningEffort != "high" {
		t.Errorf("the first request went to %q with reasoning_effort %q", q.Model, q.ReasoningEffort)
	}
}

// testGoneFolder: a session whose folder is gone (as an imported one's
// is) is no dead end. New session does not fill in its folder though it
// is the newest; the session's page says why pi cannot run it and goes
// on in a folder picked among the recent ones that exist, where real pi
// answers (issue 25 item 6, decision 0034).
func testGoneFolder(t *testing.T, r *chatRig) {
	gone := filepath.Join(t.TempDir(), "moved-away")
	id := writeSession(t, r.agentDir, gone, []map[string]any{{"role": "user", "content": "written elsewhere", "timestamp": 1}})
	waitListed(t, r.browser, id)
	r.open(t, "/")
	r.click(t, ".new-session")
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.new-session-dialog [name=cwd]')?.value === %q`, r.cwd))
	if eval[bool](t, r.browser, fmt.Sprintf(`!!document.querySelector('#ns-projects option[value=%q]')`, gone)) {
		t.Error("New session offers a folder that does not exist")
	}
	if shooting() {
		eval[bool](t, r.browser, `(() => { const e = document.querySelector('.new-session-dialog [name=cwd]'); e.value = '/no/such/folder'; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
		r.waitJS(t, `!!document.querySelector('.ns-folder-missing')`)
		shootAll(t, r.browser, "new-session-missing-folder")
	}
	r.openReady(t, "/s/"+id, `!!document.querySelector('.gone-banner')`)
	if shooting() {
		shootAll(t, r.browser, "gone-folder")
	}
	r.click(t, ".gone-banner .go-on")
	if shooting() {
		r.waitJS(t, `!!document.querySelector('.folder-dialog .folder-choice')`)
		shootAll(t, r.browser, "folder-picker")
	}
	r.click(t, fmt.Sprintf(`.folder-dialog .folder-choice[data-cwd=%q]`, r.cwd))
	r.waitJS(t, fmt.Sprintf(`location.pathname.startsWith('/s/') && !location.pathname.includes(%q) && document.querySelector('.conv')?.innerText.includes('written elsewhere')`, id))
	r.llm.Enqueue(fakellm.Text("Going on here."))
	r.exchange(t, "go on in this folder", "Going on here.")
}

func (b *browser) logged(s string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}
