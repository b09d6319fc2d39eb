package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/fakellm"
)

// watchStreamJS records, from now until the streamed message is done,
// every change in the conversation: nodes removed anywhere, changes
// outside the streamed message, and nodes added inside it. It keeps the
// first text node drawn and the rows already shown, to see them kept.
const watchStreamJS = `(() => {
	const conv = document.querySelector('.conv'), live = document.querySelector('.live-msg');
	const first = live.querySelector('.live-p').firstChild, rows = [...conv.querySelectorAll('.row:not(.live-msg)')];
	const m = window.__stream = {removed: [], outside: [], added: 0, done: false, kept: false};
	const name = (n) => n.className || n.nodeName;
	const mo = new MutationObserver((recs) => {
		if (!live.isConnected || live.classList.contains('done')) {
			mo.disconnect();
			m.done = true;
			m.kept = live.contains(first) && rows.every((r) => r.isConnected);
			return;
		}
		for (const r of recs) {
			for (const n of r.removedNodes) m.removed.push(name(n) + ' from ' + name(r.target));
			if (!live.contains(r.target)) m.outside.push(r.type + ' on ' + name(r.target));
			else if (r.type === 'childList') m.added += r.addedNodes.length;
		}
	});
	mo.observe(conv, {subtree: true, childList: true, characterData: true, attributes: true});
	return rows.length; })()`

// testStreamAppendsOnly: while pi streams a long answer the page only
// appends its new text: nothing in the conversation is removed or
// replaced, nothing outside the streamed message changes, the first text
// drawn stays the same node, and the rows already shown stay.
func testStreamAppendsOnly(t *testing.T, r *chatRig) {
	r.llm.Reset()
	hold := holdUntilEnd(t)
	text := strings.TrimSpace(strings.Repeat("Streamed word by word and appended as it comes. ", 30))
	r.llm.Enqueue(fakellm.Text("Ready to stream."),
		fakellm.Text(text).WithChunks(60).WithDelay(10*time.Millisecond).WithHold(hold, 3))
	r.startSession(t, "stream base")
	r.waitAnswer(t, "Ready to stream.")
	r.send(t, "stream a long answer")
	r.waitText(t, "stream a long answer")
	r.waitJS(t, `document.querySelector('.live-msg .live-p')?.textContent.length > 0`)
	if rows := eval[int](t, r.browser, watchStreamJS); rows < 3 {
		t.Fatalf("%d rows shown before the answer", rows)
	}
	// Screen readers hear the answer once it ends, not each delta.
	const said = `document.querySelector('.sr-only[aria-live=polite]').textContent`
	if got := eval[string](t, r.browser, said); strings.Contains(got, "Streamed") {
		t.Errorf("live region says %q while the answer streams", got)
	}
	close(hold)
	r.waitJS(t, `window.__stream.done`)
	r.waitJS(t, said+`.startsWith('pi answered: Streamed word by word')`)
	var m struct {
		Removed, Outside []string
		Added            int
		Kept             bool
	}
	m.Removed = eval[[]string](t, r.browser, `window.__stream.removed`)
	m.Outside = eval[[]string](t, r.browser, `window.__stream.outside`)
	m.Added = eval[int](t, r.browser, `window.__stream.added`)
	m.Kept = eval[bool](t, r.browser, `window.__stream.kept`)
	// The page draws at most once a frame, so a loaded machine coalesces
	// the 60 chunks into fewer appends (9 in one CI run): a few appends
	// still show the text grew in place rather than at the end.
	if len(m.Removed) > 0 || len(m.Outside) > 0 || !m.Kept || m.Added < 3 {
		t.Errorf("while streaming: removed %q, changed outside the message %q, %d nodes appended, first text and rows kept %v",
			m.Removed, m.Outside, m.Added, m.Kept)
	}
	t.Logf("%d nodes appended to the streamed message", m.Added)
	r.waitIdle(t)
	if got := lastAnswer(t, r); got != text {
		t.Errorf("the answer shown is %q, want %q", got, text)
	}
}

// lastAnswer is the text of the last assistant message in the file's
// rendering (not the live copy).
func lastAnswer(t testing.TB, r *chatRig) string {
	t.Helper()
	return eval[string](t, r.browser, `(() => { const a = [...document.querySelectorAll('.row[data-role=assistant]:not(.live-msg) .md')].pop(); return a ? a.innerText : ''; })()`)
}

// testLostConnection: the server drops every connection while pi
// streams; the page reconnects and the answer ends whole, once.
func testLostConnection(t *testing.T, r *chatRig) {
	_, release := r.startStreaming(t, "stream across a lost connection")
	defer release()
	r.http.CloseClientConnections()
	release() // the rest streams while the page is cut off
	r.waitAnswer(t, "tango.")
	if got := lastAnswer(t, r); got != longText {
		t.Errorf("after the lost connection the answer is %q, want %q", got, longText)
	}
	if n := r.countText(t, "Alpha bravo"); n != 1 {
		t.Errorf("answer shown %d times after the lost connection", n)
	}
	if r.dropNetworkErrors() == 0 {
		t.Error("the page saw no connection cut: the test proves nothing")
	}
}

// dropNetworkErrors forgets what Chromium logs for connections the test
// cut on purpose, and counts it.
func (b *browser) dropNetworkErrors() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := b.errors[:0]
	for _, e := range b.errors {
		if !strings.Contains(e, "net::ERR_") {
			kept = append(kept, e)
		}
	}
	n := len(b.errors) - len(kept)
	b.errors = kept
	return n
}

// testShiftEnter: Shift+Enter breaks the line and sends nothing.
func testShiftEnter(t *testing.T, r *chatRig) {
	asked := len(r.llm.Requests())
	r.typeIn(t, "line one")
	r.run(t, chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierShift)))
	r.waitJS(t, `document.querySelector('.composer textarea').value === 'line one\n'`)
	r.run(t, chromedp.Sleep(300*time.Millisecond))
	if n := len(r.llm.Requests()); n != asked {
		t.Errorf("Shift+Enter sent the message")
	}
	r.typeIn(t, "")
}

// testUsageLive: tokens, cost and context use under the composer change
// when a turn ends.
func testUsageLive(t *testing.T, r *chatRig, send func()) {
	const usage = `(document.querySelector('.chat-controls .live-usage')?.textContent || '')`
	r.waitJS(t, usage+` && document.querySelector('.chat-controls .ctx-usage')`)
	before := eval[string](t, r.browser, usage)
	ctx := eval[string](t, r.browser, `document.querySelector('.chat-controls .ctx-usage').textContent`)
	if !strings.HasPrefix(ctx, "context ") || !strings.Contains(ctx, "% of ") {
		t.Errorf("context use %q", ctx)
	}
	send()
	r.waitJS(t, fmt.Sprintf(`%s && %s !== %q`, usage, usage, before))
}
