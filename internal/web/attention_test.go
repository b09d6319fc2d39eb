package web

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"piweb/internal/apitype"
	"piweb/internal/fakellm"
)

// TestAttentionTwoTabs, on real pi 1.6.0 with a tab in each of two
// browser profiles (two devices: nothing shared but the server): a run
// started elsewhere shows as running in both, then unread with a toast, a
// title count and a favicon badge; reading it in one clears it in the
// other; a failed run is announced where the session is not in view; a
// session muted in one is muted in the other.
func TestAttentionTwoTabs(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newPi16Rig(t)
	a := r.browser
	a.open(t, "/")
	tabCtx, cancel := chromedp.NewContext(a.ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	if err := chromedp.Do(tabCtx, addScript(keepToasts)); err != nil { // the first call on a context opens its tab
		t.Fatal(err)
	}
	b := &browser{ctx: tabCtx, base: a.base, t: t}
	b.open(t, "/")
	for _, x := range []*browser{a, b} { // both tabs act as in view, as two windows side by side would
		x.run(t, focusEmulation())
	}
	both := func(js string) {
		t.Helper()
		a.waitJS(t, js)
		b.waitJS(t, js)
	}

	// pi writes a new session's file with its first answer: the row
	// appears then, unread, with a toast, a title count and a badge.
	r.llm.Enqueue(fakellm.Text("First answer."))
	id := r.create(t, apitype.CreateRequest{Cwd: r.cwd, Message: "attention please"})
	row := fmt.Sprintf(`.sess[data-id=%q]`, id)
	both(`!!document.querySelector('` + row + ` .unread-dot') && !document.querySelector('` + row + ` .run-dot')`)
	both(toastShown("pi finished", "attention please"))
	both(`document.title.startsWith('(1) ') && document.querySelector('link[rel=icon]').dataset.badge === 'on'`)

	// A run: running in both tabs while it lasts.
	reply, release := holdReply("Alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima.")
	defer release()
	r.llm.Enqueue(reply)
	r.command(t, id, map[string]any{"type": "prompt", "message": "keep going"})
	both(`!!document.querySelector('` + row + ` .run-dot')`)
	release()
	both(`!document.querySelector('` + row + ` .run-dot') && !!document.querySelector('` + row + ` .unread-dot')`)

	if shooting() {
		eachShot(t, b, 800, func(w int64, scheme string) { b.screenshot(t, shotName("attention-home", w, scheme)) })
	}

	// Read in tab a: tab b sees it read.
	a.run(t, chromedp.Click(row))
	a.waitJS(t, `!document.querySelector('`+row+` .unread-dot') && !document.title.startsWith('(')`)
	b.waitJS(t, `!document.querySelector('`+row+` .unread-dot') && !document.title.startsWith('(')`)

	// A failed run: announced in b (home), not in a (viewing it).
	for range 3 { // pi retries twice (fakellm.WriteSettings)
		r.llm.Enqueue(fakellm.Error(500, "the provider broke"))
	}
	r.command(t, id, map[string]any{"type": "prompt", "message": "now fail"})
	b.waitJS(t, toastShown("pi failed"))
	// The error shows in the conversation, and the run is over in a too
	// (its composer's Stop, also a .stop, gone), so that the clicks
	// below do not meet the controls as the run ends.
	a.waitJS(t, `!!document.querySelector('.conv .stop.error') && !document.querySelector('.composer .stop')`)
	b.waitJS(t, `!document.querySelector('`+row+` .run-dot')`)
	if n := eval[int](t, b, `window.testToasts.filter((t) => t.textContent.includes('pi failed')).length`); n != 1 {
		t.Errorf("a run that failed after pi's two retries was announced %d times, want once (when pi gave up)", n)
	}
	if eval[bool](t, a, toastShown("pi failed")) {
		t.Error("tab a announced a failure in the session it shows")
	}

	// Muted in a: b stays quiet for the next run.
	a.run(t, chromedp.Click(".chat-controls .chat-more-btn"), chromedp.Click(".chat-controls .act-mute"))
	a.waitJS(t, `!!document.querySelector('.chat-more-btn.on')`) // muted in a, at once
	b.waitJS(t, `!!document.querySelector('`+row+` .mute-mark')`)
	eval[bool](t, b, `(window.testToasts = [], true)`)
	r.llm.Enqueue(fakellm.Text("Quiet now."))
	r.command(t, id, map[string]any{"type": "prompt", "message": "quietly"})
	a.waitJS(t, `document.querySelector('.conv')?.innerText.includes('Quiet now.')`)
	b.waitJS(t, `!document.querySelector('`+row+` .run-dot')`) // over (and read: tab a shows it)
	if eval[bool](t, b, toastShown("pi finished")) {
		t.Error("a muted session was announced")
	}
	b.noConsoleErrors(t)
}

// focusEmulation makes the tab behave as focused and in view even when
// another tab of the browser is in front.
func focusEmulation() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return chromedp.Void{}, err
	}
}
