package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// completionLabels lists what the composer's completion offers.
const completionLabels = `[...document.querySelectorAll('.completions .c-label')].map((e) => e.textContent)`

// testCompose runs the composer's and the controls' tests on one session
// (one pi).
func testCompose(t *testing.T, r *chatRig) {
	id := r.startAnswered(t, "compose base", "Ready to compose.")
	t.Run("completion", func(t *testing.T) { testCompletion(t, r) })
	t.Run("dialogs", func(t *testing.T) { testDialogs(t, r) })
	t.Run("model and images", func(t *testing.T) { testModelAndImages(t, r, id) })
	t.Run("phases", func(t *testing.T) { testPhases(t, r, id) })
}

// testCompletion: "/" offers pi's prompt templates, skills and extension
// commands (never piweb's own bridge commands), and what is chosen reaches
// the model as pi expands it; "@" finds the session's files fuzzily, and
// inside a folder once one is taken.
func testCompletion(t *testing.T, r *chatRig) {
	os.MkdirAll(filepath.Join(r.cwd, "src", "util"), 0o755)
	testkit.WriteFile(t, filepath.Join(r.cwd, "src", "main.go"), "package main\n")

	t.Run("slash", func(t *testing.T) {
		r.typeIn(t, "/")
		r.waitJS(t, `(() => { const l = `+completionLabels+`; return ['/review', '/skill:tidy', '/ask-colour'].every((x) => l.includes(x)); })()`)
		if bridge := eval[[]string](t, r.browser, completionLabels+`.filter((x) => x.startsWith('/piweb-'))`); len(bridge) > 0 {
			t.Errorf("piweb's bridge commands offered: %v", bridge)
		}
		r.typeIn(t, "/rev")
		r.waitJS(t, completionLabels+`.join() === '/review'`)
		r.key(t, kb.Tab)
		r.waitJS(t, `document.querySelector('.composer textarea').value === '/review ' && !document.querySelector('.completions')`)
		r.llm.Enqueue(fakellm.Text("Reviewed it."))
		r.exchange(t, "/review README.md", "Reviewed it.")
		if got := r.llm.LastRequest().LastUserText(); !strings.Contains(got, "Please review the file README.md carefully.") {
			t.Errorf("the model got %q, not the expanded template", got)
		}
	})
	t.Run("skill", func(t *testing.T) {
		r.typeIn(t, "/skill:t")
		r.waitJS(t, completionLabels+`[0] === '/skill:tidy'`)
		r.llm.Enqueue(fakellm.Text("Tidied."))
		r.key(t, kb.Enter) // takes the command and sends it, as in pi's editor
		r.waitAnswer(t, "Tidied.")
		if got := r.llm.LastRequest().LastUserText(); !strings.Contains(got, "Remove files nobody needs") {
			t.Errorf("the model got %q, not the skill", got)
		}
	})
	t.Run("files", func(t *testing.T) {
		r.typeIn(t, "look at @sr")
		r.waitJS(t, completionLabels+`[0] === 'src/'`)
		r.key(t, kb.Tab)
		r.waitJS(t, `document.querySelector('.composer textarea').value === 'look at @src/'`)
		r.waitJS(t, completionLabels+`.join() === 'src/util/,src/main.go'`)
		r.key(t, kb.ArrowDown)
		r.waitJS(t, `document.querySelector('.completions li.sel .c-label')?.textContent === 'src/main.go'`)
		r.key(t, kb.Enter) // takes the path and does not send
		r.waitJS(t, `document.querySelector('.composer textarea').value === 'look at @src/main.go ' && !document.querySelector('.completions')`)
		r.llm.Enqueue(fakellm.Text("Looked."))
		r.key(t, kb.Enter)
		r.waitAnswer(t, "Looked.")
		if got := r.llm.LastRequest().LastUserText(); !strings.Contains(got, "look at @src/main.go") {
			t.Errorf("the model got %q", got)
		}
		// Fuzzy, from anywhere in the folder; a path that matches nothing
		// offers nothing, and costs no failed request.
		r.typeIn(t, "see @mngo")
		r.waitJS(t, completionLabels+`[0] === 'src/main.go'`)
		for _, text := range []string{"see @nothere/deeper/x", "see @../"} {
			r.typeIn(t, text)
		}
		r.typeIn(t, "and @s")
		r.waitJS(t, completionLabels+`[0] === 'src/'`)
		r.noConsoleErrors(t)
		r.key(t, kb.Escape)
		r.waitJS(t, `!document.querySelector('.completions') && document.querySelector('.composer textarea').value === 'and @s'`)
		r.typeIn(t, "")
	})
}

// testDialogs: extension dialogs as cards at the end of the conversation,
// in view — a select answered, a confirm left to time out as the
// extension asked, an input and an editor — each answer reaching pi, which
// reports it as a toast and a status line.
func testDialogs(t *testing.T, r *chatRig) {
	reported := func(t *testing.T, text string) {
		t.Helper()
		r.waitJS(t, toastShown(text))
		r.waitJS(t, fmt.Sprintf(`document.querySelector('.ext-status')?.innerText.includes(%q)`, text))
	}
	inConversation := func(t *testing.T) {
		t.Helper()
		r.waitJS(t, `document.querySelector('.ext-card')`)
		const want = "last in the conversation, in view"
		testkit.Eventually(t, func() error {
			if where := eval[string](t, r.browser, cardPlaceJS); where != want {
				return fmt.Errorf("the extension dialog is %s", where)
			}
			return nil
		}, 5*time.Second, "the extension dialog "+want)
	}
	t.Run("select", func(t *testing.T) {
		r.send(t, "/ask-colour")
		r.waitJS(t, `document.querySelectorAll('.ext-card .ext-option').length === 3`)
		inConversation(t)
		// The card does not block the page: no overlay, the composer types.
		if n := eval[int](t, r.browser, `document.querySelectorAll('.overlay, [aria-modal=true]').length`); n != 0 {
			t.Error("the extension dialog covers the page")
		}
		r.typeIn(t, "typed while asked")
		r.typeIn(t, "")
		r.click(t, `.ext-card .ext-option:nth-of-type(2)`)
		reported(t, "colour: green")
		r.waitJS(t, `!document.querySelector('.ext-card')`)
	})
	t.Run("confirm times out", func(t *testing.T) {
		// The card counts down the extension's 3 s and stays that long.
		eval[bool](t, r.browser, `(() => { const c = window.__card = {};
			new MutationObserver(() => { const on = !!document.querySelector('.ext-card'), now = performance.now();
				if (on && !c.shown) c.shown = now; if (!on && c.shown && !c.gone) c.gone = now; })
				.observe(document.body, {subtree: true, childList: true});
			return true; })()`)
		r.send(t, "/ask-proceed 3000")
		r.waitJS(t, `document.querySelector('.ext-card .ext-countdown')`)
		inConversation(t)
		if got := eval[string](t, r.browser, `document.querySelector('.ext-card .ext-countdown').innerText`); got != "closes in 3 s" && got != "closes in 2 s" {
			t.Errorf("countdown %q for a 3 s timeout", got)
		}
		reported(t, "proceed: false")
		r.waitJS(t, `!document.querySelector('.ext-card') && window.__card.gone`)
		if open := eval[float64](t, r.browser, `window.__card.gone - window.__card.shown`); open < 2500 {
			t.Errorf("the card closed after %.0f ms; the extension gave 3000", open)
		}
	})
	t.Run("input", func(t *testing.T) {
		r.send(t, "/ask-name")
		r.waitJS(t, `document.activeElement === document.querySelector('.ext-card input.ext-input')`)
		inConversation(t)
		r.run(t, chromedp.KeyEvent("Ada"))
		r.key(t, kb.Enter)
		reported(t, "name: Ada")
	})
	t.Run("editor", func(t *testing.T) {
		r.send(t, "/ask-text")
		r.waitJS(t, `document.querySelector('.ext-card textarea.ext-input')?.value === 'line one\nline two'`)
		inConversation(t)
		eval[bool](t, r.browser, `(() => { const e = document.querySelector('.ext-card textarea'); e.value += '\nline three'; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
		r.waitJS(t, `document.querySelector('.ext-card textarea').value.endsWith('three')`)
		r.click(t, ".ext-card .ext-ok")
		reported(t, "text: 3 lines")
	})
}

// cardPlaceJS says where the extension dialog is: last in the
// conversation's content (after the messages and the streamed one) and
// within the conversation's visible box, or what is wrong.
const cardPlaceJS = `(() => {
	const card = document.querySelector('.ext-card'), conv = document.querySelector('.conv');
	if (!conv || !conv.contains(card)) return 'outside the conversation (in ' + (card.parentElement.closest('[class]')?.className || '?') + ')';
	const after = [...conv.querySelectorAll('.row, .live-msg')].filter((e) => card.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
	if (after.length) return 'before ' + after.length + ' messages';
	const c = card.getBoundingClientRect(), v = conv.getBoundingClientRect();
	if (c.top < v.top - 1 || c.bottom > v.bottom + 1) return 'out of view (' + Math.round(c.top) + '-' + Math.round(c.bottom) + ' in ' + Math.round(v.top) + '-' + Math.round(v.bottom) + ')';
	return 'last in the conversation, in view'; })()`
