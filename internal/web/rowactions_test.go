package web

import (
	"fmt"
	"os"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"piweb/internal/testkit"
)

// testLabels sets, changes and clears a label from a message and from the
// tree panel; each change is written to the file (a label entry) and
// shown in both places.
func testLabels(t *testing.T, r *rig) {
	id := writeSession(t, r.dir, "/tmp/labels", exchanges(1, 1, "first question", "first answer", "second question", "second answer"))
	r.openSession(t, id, `document.querySelector('.row[data-entry=e0000002]')`)
	setLabel := func(sel, text string) {
		t.Helper()
		r.click(t, sel)
		r.waitJS(t, `document.activeElement?.matches('.label-edit input')`)
		r.run(t, chromedp.SendKeys(`.label-edit input`, "\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b\b"+text+"\r"))
		r.waitJS(t, `!document.querySelector('.label-edit')`)
	}
	chip := `(document.querySelector('.row[data-entry=e0000002] .msg-label .label-text')||{}).textContent`
	setLabel(`.row[data-entry=e0000002] .label-btn`, "checkpoint")
	r.waitJS(t, chip+` === 'checkpoint'`)
	file := r.sessionFile(t, id)
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), `"type":"label"`) || !strings.Contains(string(b), `"label":"checkpoint"`) {
		t.Fatalf("no label entry in the file:\n%s", b)
	}
	// Change it from the chip, then clear it.
	setLabel(`.row[data-entry=e0000002] .msg-label .label-text`, "v2")
	r.waitJS(t, chip+` === 'v2'`)
	r.click(t, `.row[data-entry=e0000002] .label-clear`)
	r.waitJS(t, `!document.querySelector('.row[data-entry=e0000002] .msg-label')`)
	// From the tree: set one on the second question; the message shows it.
	r.run(t, chromedp.KeyEvent("t"))
	r.waitJS(t, `document.querySelector('.tnode[data-id=e0000003]')`)
	// The label link has a place of its own: it covers no count or chip.
	if !eval[bool](t, r.browser, `[...document.querySelectorAll('.tnode')].every(n => {
		const l = n.querySelector('.tnode-label-btn').getBoundingClientRect();
		return [...n.querySelectorAll('.tnode-btn > span')].every(s => { const b = s.getBoundingClientRect();
			return b.right <= l.left + 0.5 || b.bottom <= l.top || b.top >= l.bottom; }); })`) {
		t.Error("the tree's label link overlaps a row's text, counts or chips")
	}
	setLabel(`.tnode[data-id=e0000003] .tnode-label-btn`, "from tree")
	if shooting() {
		shootAll(t, r.browser, "tree-labels")
	}
	r.waitJS(t, `(document.querySelector('.tnode[data-id=e0000003] .tlabel')||{}).textContent === 'from tree'`)
	r.waitJS(t, `(document.querySelector('.row[data-entry=e0000003] .msg-label .label-text')||{}).textContent === 'from tree'`)
	setLabel(`.tnode[data-id=e0000003] .tnode-label-btn`, "")
	r.waitJS(t, `!document.querySelector('.tnode[data-id=e0000003] .tlabel') && !document.querySelector('.row[data-entry=e0000003] .msg-label')`)
	// After a reload the labels are read from the file.
	setLabel(`.tnode[data-id=e0000001] .tnode-label-btn`, "kept")
	r.openReady(t, "/s/"+id, `(document.querySelector('.row[data-entry=e0000001] .msg-label .label-text')||{}).textContent === 'kept'`)
}

// branchedSession writes a session whose first answer was retried: two
// user messages share the first answer as parent; the file's leaf is on
// the second.
func branchedSession(t *testing.T, agentDir string) string {
	id := writeSession(t, agentDir, "/tmp/branched", exchanges(1, 1, "hello", "hi"))
	file := sessionPath(t, agentDir, id)
	for _, l := range []string{
		`{"type":"message","id":"b0000003","parentId":"e0000002","timestamp":"2026-12-01T10:01:00.000Z","message":{"role":"user","content":"first try","timestamp":3}}`,
		`{"type":"message","id":"b0000004","parentId":"b0000003","timestamp":"2026-12-01T10:01:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"**first** answer"}],"api":"x","provider":"x","model":"m","stopReason":"stop","timestamp":4}}`,
		`{"type":"message","id":"b0000005","parentId":"e0000002","timestamp":"2026-12-01T10:02:00.000Z","message":{"role":"user","content":"second try","timestamp":5}}`,
		`{"type":"message","id":"b0000006","parentId":"b0000005","timestamp":"2026-12-01T10:02:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"second answer"}],"api":"x","provider":"x","model":"m","stopReason":"stop","timestamp":6}}`,
	} {
		testkit.AppendFile(t, file, l+"\n")
	}
	return id
}

// testSiblingsAndCopy switches between two sibling branches in place and
// copies a message as Markdown and as text.
func testSiblingsAndCopy(t *testing.T, r *rig) {
	id := branchedSession(t, r.dir)
	r.waitIndexed(t, id)
	r.open(t, "/s/"+id)
	pos := `(document.querySelector('.row[data-role=user]:not([data-entry=e0000001]) .sib-pos')||{}).textContent`
	r.waitJS(t, pos+` === '2/2'`)
	if n := r.count(t, `.row[data-entry=e0000001] .siblings`); n != 0 {
		t.Error("a message without siblings shows the switch")
	}
	r.click(t, `.row[data-entry=b0000005] .sib-prev`)
	r.waitJS(t, `document.querySelector('.row[data-entry=b0000003]') && !document.querySelector('.row[data-entry=b0000005]')`)
	r.waitJS(t, pos+` === '1/2' && location.search === '?leaf=b0000004'`)
	r.click(t, `.row[data-entry=b0000003] .sib-next`)
	r.waitJS(t, `document.querySelector('.row[data-entry=b0000005]') && location.search === ''`)

	// Copy, on the real clipboard.
	r.run(t, cdpCall(emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}))
	for _, p := range []string{"clipboard-read", "clipboard-write"} {
		r.run(t, setPermission(cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: p, AllowWithoutSanitization: true},
			Setting:    cdpbrowser.PermissionSettingGranted, Origin: r.base}))
	}
	r.click(t, `.row[data-entry=b0000005] .sib-prev`)
	r.waitJS(t, `document.querySelector('.row[data-entry=b0000004] .md strong')`)
	for _, c := range []struct{ sel, want string }{{".copy-md", "**first** answer"}, {".copy-text", "first answer"}} {
		eval[bool](t, r.browser, `(window.testToasts = [], navigator.clipboard.writeText('').then(() => true))`)
		r.click(t, `.row[data-entry=b0000004] .copy-msg`)
		r.click(t, `.row[data-entry=b0000004] `+c.sel)
		r.waitJS(t, toastShown("Copied"))
		if got := eval[string](t, r.browser, `navigator.clipboard.readText()`); got != c.want {
			t.Errorf("%s copied %q, want %q", c.sel, got, c.want)
		}
		r.waitJS(t, fmt.Sprintf(`!document.querySelector(%q)`, ".row[data-entry=b0000004] "+c.sel))
	}
}

// testMessageActions: a message's actions are a row of named icons over
// its head, shown on hover and on keyboard focus and taking no height; on
// a phone they wait behind one "more" button (Escape closes them). An
// empty user message is named, not an empty bubble.
func testMessageActions(t *testing.T, r *rig) {
	id := writeSession(t, r.dir, "/tmp/actions", exchanges(1, 1, "a question", "an answer", " ", "to nothing"))
	r.openSession(t, id, `document.querySelector('.row[data-entry=e0000004]')`)
	const shown = `((sel) => { const e = document.querySelector(sel); const s = e && getComputedStyle(e); return !!s && s.display !== 'none' && s.opacity === '1'; })`
	got := eval[string](t, r.browser, `(() => {
		const row = document.querySelector('.row[data-entry=e0000001]');
		const tools = row.querySelector('.msg-tools');
		return [getComputedStyle(tools).position, getComputedStyle(row.querySelector('.msg-actions')).opacity,
			!!row.querySelector('.row-foot'), row.offsetHeight - row.querySelector('.msg').offsetHeight <= 12,
			[...row.querySelectorAll('.msg-actions .msg-tool')].map((b) => b.getAttribute('aria-label')).join('|'),
			!!document.querySelector('.row[data-entry=e0000003] .bubble'),
			document.querySelector('.row[data-entry=e0000003] .empty-msg')?.textContent].join(); })()`)
	if want := "absolute,0,false,true,Copy|Label|Edit from here|Retry|Fork: a new session with the history before this message,false,(empty message)"; got != want {
		t.Errorf("actions (position, opacity, foot, no height, labels, empty bubble, empty text) =\n%s, want\n%s", got, want)
	}
	// Hover shows the first row's; keyboard focus shows the fourth's.
	box := eval[[]float64](t, r.browser, `(() => { const b = document.querySelector('.row[data-entry=e0000001] .msg').getBoundingClientRect(); return [b.x + b.width / 2, b.y + 8]; })()`)
	r.run(t, cdpCall(input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: box[0], Y: box[1]}))
	r.waitJS(t, shown+`('.row[data-entry=e0000001] .msg-actions')`)
	eval[bool](t, r.browser, `(document.querySelector('.row[data-entry=e0000004] .copy-msg').focus(), true)`)
	r.waitJS(t, shown+`('.row[data-entry=e0000004] .msg-actions')`)

	// A phone: one "more" button, the row no taller.
	r.run(t, chromedp.EmulateViewport(390, 844))
	defer r.run(t, chromedp.EmulateViewport(1280, 800))
	r.openReady(t, "/s/"+id, `document.querySelector('.row[data-entry=e0000004]')`)
	row := `document.querySelector('.row[data-entry=e0000001]')`
	if got := eval[string](t, r.browser, `[getComputedStyle(`+row+`.querySelector('.msg-actions')).display, getComputedStyle(`+row+`.querySelector('.msg-more')).display !== 'none'].join()`); got != "none,true" {
		t.Errorf("phone actions (row, more) display = %s", got)
	}
	r.click(t, `.row[data-entry=e0000001] .msg-more`)
	r.waitJS(t, shown+`('.row[data-entry=e0000001] .msg-actions') && document.querySelector('.row[data-entry=e0000001] .msg-more').getAttribute('aria-expanded') === 'true'`)
	eval[bool](t, r.browser, `(document.querySelector('.row[data-entry=e0000001] .edit-here').focus(), true)`)
	r.run(t, chromedp.KeyEvent(kb.Escape))
	r.waitJS(t, `getComputedStyle(document.querySelector('.row[data-entry=e0000001] .msg-actions')).display === 'none'`)
}
