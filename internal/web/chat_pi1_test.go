package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// TestChatPi1 checks the page against what real pi 1.x sends and writes:
// an answer streamed as delta-only message_update events shows word by
// word; the system message pi records before the first prompt is a
// collapsed "System prompt" card (not a bubble, not the title); an attempt
// pi retried and left out of the context with a context_edit is greyed
// as not sent to the model; each answer shows how long it took; a folder
// whose project resources pi skips says so until the user trusts it.
func TestChatPi1(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newPi16Rig(t)
	// A project prompt, which pi 1.x loads only from a trusted folder.
	testkit.WriteFile(t, filepath.Join(r.cwd, ".pi", "prompts", "hello.md"), "---\ndescription: Say hello\n---\nSay hello to $1.\n")
	r.llm.Enqueue(fakellm.Text("First answer."))
	id := r.startSession(t, "pi one point x")
	r.waitAnswer(t, "First answer.")

	t.Run("system prompt card", func(t *testing.T) {
		// Counted as pi counts it (docs/decisions/0032): the system message,
		// the user's and pi's; the sidebar's count is the same.
		r.waitJS(t, `document.querySelector('.sess-facts .count')?.textContent.startsWith('3 messages ·')`)
		r.waitJS(t, fmt.Sprintf(`document.querySelector('.sess[data-id=%q] .sess-meta')?.innerText.includes('3 msgs')`, id))
		r.waitJS(t, `document.querySelector('.conv [data-role=system] details.system-prompt')`)
		got := eval[string](t, r.browser, `(() => {
			const d = document.querySelector('.conv [data-role=system] details.system-prompt');
			return [d.open, d.querySelector('summary').innerText.includes('System prompt'),
				!document.querySelector('.conv').innerText.includes('toolsAdded'),
				document.querySelectorAll('.conv [data-role=system] .bubble').length].join(); })()`)
		if got != "false,true,true,0" {
			t.Errorf("system card (open, titled, no JSON, bubbles) = %s", got)
		}
		r.click(t, ".conv [data-role=system] details.system-prompt > summary")
		r.waitJS(t, `[...document.querySelectorAll('.system-prompt .sys-tools code')].some((c) => c.textContent === 'bash')`)
		if title := eval[string](t, r.browser, `document.querySelector('.sess-name').innerText`); !strings.Contains(title, "pi one point x") {
			t.Errorf("title = %q, want the first user message", title)
		}
		r.waitJS(t, `document.title.startsWith('pi one point x')`)
	})

	t.Run("duration", func(t *testing.T) {
		r.waitJS(t, `[...document.querySelectorAll('.conv .msg.assistant .duration')].some((e) => / m?s$/.test(e.textContent))`)
	})

	t.Run("words stream", func(t *testing.T) {
		text := strings.TrimSpace(strings.Repeat("Each word arrives on its own as the model streams it. ", 8))
		r.llm.Enqueue(fakellm.Text(text).WithChunks(40).WithDelay(40 * time.Millisecond))
		eval[bool](t, r.browser, `(() => {
			const seen = window.__lens = [];
			const poll = () => {
				const p = document.querySelector('.live-msg:not(.done) .live-blocks');
				if (p) { const n = p.innerText.length; if (n && seen[seen.length - 1] !== n) seen.push(n); }
				if (seen.length < 1000) requestAnimationFrame(poll);
			};
			poll();
			return true; })()`)
		r.exchange(t, "stream slowly", "as the model streams it.")
		lens := eval[[]int](t, r.browser, `window.__lens.splice(0)`)
		grew := 0
		for i := 1; i < len(lens); i++ {
			if lens[i] > lens[i-1] {
				grew++
			}
		}
		if len(lens) < 5 || grew < len(lens)-1 {
			t.Errorf("streamed text lengths seen: %v; want at least 5, each longer than the last", lens)
		}
		if n := r.countText(t, "Each word arrives"); n != 8 {
			t.Errorf("answer shown with %d copies of its sentence, want 8", n)
		}
	})

	t.Run("project trust", func(t *testing.T) {
		r.waitJS(t, `document.querySelector('.trust-banner')?.innerText.includes('.pi/prompts')`)
		r.typeIn(t, "/hel")
		r.waitJS(t, `!`+completionLabels+`.includes('/hello')`)
		r.typeIn(t, "")
		// For this session only: its pi runs with --approve, nothing saved.
		r.click(t, ".trust-banner .trust-session")
		r.waitJS(t, `!document.querySelector('.trust-banner')`)
		r.typeIn(t, "/hel")
		r.waitJS(t, completionLabels+`.includes('/hello')`)
		r.typeIn(t, "")
		if _, err := os.Stat(filepath.Join(r.agentDir, "trust.json")); !os.IsNotExist(err) {
			t.Errorf("trusting for this session only wrote trust.json (%v)", err)
		}
		r.open(t, "/s/"+id)
		r.waitText(t, "First answer.")
		if eval[bool](t, r.browser, `!!document.querySelector('.trust-banner')`) {
			t.Error("the approved session asks again after a reload")
		}
		// Another session of the folder still asks; trusting the folder
		// writes pi's trust.json.
		r.llm.Enqueue(fakellm.Text("Second session."))
		r.startSession(t, "another session here")
		r.waitAnswer(t, "Second session.")
		r.waitJS(t, `document.querySelector('.trust-banner')?.innerText.includes('.pi/prompts')`)
		r.click(t, ".trust-banner .trust-folder")
		r.waitJS(t, `!document.querySelector('.trust-banner')`)
		r.typeIn(t, "/hel")
		r.waitJS(t, completionLabels+`.includes('/hello')`)
		r.typeIn(t, "")
		if _, err := os.Stat(filepath.Join(r.agentDir, "trust.json")); err != nil {
			t.Error(err)
		}
		r.open(t, "/s/"+id)
		r.waitText(t, "First answer.")
	})

	t.Run("bash kept out of context", func(t *testing.T) {
		before := len(r.llm.Requests())
		r.send(t, "!!echo kept-out-of-context")
		r.waitJS(t, `[...document.querySelectorAll('.conv [data-role=bashExecution]')].some((e) => e.innerText.includes('kept-out-of-context') && e.innerText.includes('not in context'))`)
		r.send(t, "!echo sent-to-the-model")
		r.waitJS(t, `[...document.querySelectorAll('.conv [data-role=bashExecution]')].some((e) => e.innerText.includes('sent-to-the-model'))`)
		if len(r.llm.Requests()) != before {
			t.Fatalf("a shell command reached the model")
		}
		r.llm.Enqueue(fakellm.Text("Seen the shell."))
		r.exchange(t, "what did the shell say?", "Seen the shell.")
		body := mustJSON(r.llm.LastRequest().Messages)
		if strings.Contains(body, "kept-out-of-context") || !strings.Contains(body, "sent-to-the-model") {
			t.Errorf("the model's context: !! output present %v, ! output present %v",
				strings.Contains(body, "kept-out-of-context"), strings.Contains(body, "sent-to-the-model"))
		}
	})

	t.Run("retried attempt greyed", func(t *testing.T) {
		r.llm.Enqueue(fakellm.Error(500, "upstream exploded"), fakellm.Text("Recovered after the retry."))
		r.exchange(t, "please fail once", "Recovered after the retry.")
		r.waitJS(t, `[...document.querySelectorAll('.conv .row.omitted')].some((e) => e.innerText.includes('retried, not sent to the model') && e.innerText.includes('upstream exploded'))`)
		if op := eval[string](t, r.browser, `getComputedStyle(document.querySelector('.conv .row.omitted')).opacity`); op == "1" {
			t.Errorf("the retried attempt is not greyed (opacity %s)", op)
		}
		// Reopened, the page shows the same from the file.
		r.open(t, "/s/"+id)
		r.waitText(t, "Recovered after the retry.")
		r.waitJS(t, `document.querySelector('.conv .row.omitted')?.innerText.includes('retried, not sent to the model')`)
		if n := r.countText(t, "Recovered after the retry."); n != 1 {
			t.Errorf("answer shown %d times", n)
		}
	})
}
