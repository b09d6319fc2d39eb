package web

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"piweb/internal/agent"
	"piweb/internal/fakellm"
)

// TestChatCommands: pi's own commands typed in the composer act as in pi's
// terminal and never reach the model: "/" lists them with pi's extension
// commands, prompt templates and skills; /name renames, "!echo hi" runs
// through pi's bash and shows its output, /compact compacts with its
// instructions, /session shows pi's stats, /tree opens the tree, /fork
// offers the user messages, /copy, /export and /reload work.
func TestChatCommands(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newChatRigWith(t, agent.Config{})
	r.llm.Enqueue(fakellm.Text("Ready for commands."))
	id := r.startSession(t, "commands base")
	r.waitAnswer(t, "Ready for commands.")
	asked := func() int { return len(r.llm.Requests()) }

	t.Run("list", func(t *testing.T) {
		r.typeIn(t, "/")
		r.waitJS(t, `(() => { const l = `+completionLabels+`; return ['/compact [instructions]', '/name <name>', '/tree', '/review', '/skill:tidy'].every((x) => l.includes(x)); })()`)
		r.typeIn(t, "")
	})
	t.Run("name", func(t *testing.T) {
		before := asked()
		r.send(t, "/name Commands test")
		r.waitJS(t, `document.querySelector('.sess-name')?.textContent.includes('Commands test')`)
		r.waitJS(t, `document.querySelector('.composer textarea').value === ''`)
		if got := r.detail(t, id); !strings.Contains(mustJSON(got.Session), `"name":"Commands test"`) {
			t.Errorf("session after /name: %s", mustJSON(got.Session))
		}
		if asked() != before {
			t.Errorf("/name reached the model")
		}
	})
	t.Run("bash", func(t *testing.T) {
		before := asked()
		r.send(t, "!echo hi from bash")
		r.waitJS(t, `[...document.querySelectorAll('.conv [data-role=bashExecution]')].some((e) => e.innerText.includes('hi from bash'))`)
		if asked() != before {
			t.Errorf("!cmd reached the model")
		}
	})
	t.Run("compact", func(t *testing.T) {
		// pi 1.x compacts only what lies before the recent tokens it keeps
		// (20,000 by default): a second turn and a small keep give it some.
		r.llm.Enqueue(fakellm.Text("Second answer."))
		r.exchange(t, "a second turn", "Second answer.")
		r.send(t, "/compact keep the word banana")
		r.waitJS(t, `document.querySelector('.conv [data-role=compactionSummary]')`)
		if !slices.ContainsFunc(r.llm.Requests(), func(q *fakellm.Request) bool {
			return q.Kind() == fakellm.KindCompaction && strings.Contains(q.LastUserText(), "keep the word banana")
		}) {
			t.Error("no compaction request carries the instructions")
		}
		for _, q := range r.llm.Requests() {
			if q.Kind() != fakellm.KindCompaction && strings.Contains(q.LastUserText(), "/compact") {
				t.Errorf("/compact reached the model as text: %q", q.LastUserText())
			}
		}
	})
	t.Run("session", func(t *testing.T) {
		r.send(t, "/session")
		r.waitJS(t, `document.querySelector('.session-info')?.innerText.includes('`+id+`')`)
		// The open card follows the session: its counts change with a turn.
		counts := `[...document.querySelectorAll('.session-info dt')].find((e) => e.textContent === 'Messages')` +
			`?.nextElementSibling.textContent`
		before := eval[string](t, r.browser, counts)
		r.llm.Enqueue(fakellm.Text("Counted answer."))
		r.exchange(t, "a turn the card counts", "Counted answer.")
		r.waitJS(t, counts+` !== `+strconv.Quote(before))
		r.click(t, ".session-info .x")
	})
	t.Run("tree", func(t *testing.T) {
		r.send(t, "/tree")
		r.waitJS(t, `document.querySelector('.side-panel')`)
		r.click(t, ".sess-actions .btn.on")
		r.waitJS(t, `!document.querySelector('.side-panel')`)
	})
	t.Run("fork", func(t *testing.T) {
		r.send(t, "/fork")
		r.waitJS(t, `[...document.querySelectorAll('.picker .picker-item')].some((b) => b.textContent.includes('commands base'))`)
		r.click(t, ".picker .picker-cancel")
		r.waitJS(t, `!document.querySelector('.picker')`)
	})
	t.Run("reload", func(t *testing.T) {
		before := asked()
		r.send(t, "/reload")
		r.waitJS(t, toastShown("reloads"))
		t.Logf("state after reload: %v", r.command(t, id, map[string]any{"type": "get_state"}))
		r.llm.Enqueue(fakellm.Text("Still here after reload."))
		r.exchange(t, "after reload", "Still here after reload.")
		if asked() != before+1 {
			t.Errorf("the model got %d requests for one prompt after /reload", asked()-before)
		}
	})
}
