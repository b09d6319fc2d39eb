package web

import (
	"fmt"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"

	"piweb/internal/fakellm"
)

// TestRunningDot has real pi answer slowly (the fake LLM holds its stream)
// in two sessions at once and checks that the sidebar marks each as
// running while its turn runs, live, and clears the mark when it ends.
func TestRunningDot(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newChatRig(t)
	holds := []chan struct{}{make(chan struct{}), make(chan struct{})}
	var items, dots []string
	for i, hold := range holds {
		// pi writes a new session's file when its first answer ends: the
		// session is listed from then on, and its second turn is held.
		answer := fmt.Sprintf("first answer %d", i)
		r.llm.Enqueue(fakellm.Text(answer), fakellm.Text("a held answer").WithChunks(10).WithHold(hold, 3))
		id := r.startSession(t, fmt.Sprintf("hello %d", i))
		r.waitAnswer(t, answer)
		item := fmt.Sprintf(`document.querySelector('.sess[data-id=%q]')`, id)
		dot := item + `.querySelector('.run-dot')`
		r.waitJS(t, item+` && !`+dot)
		r.send(t, "hold on")
		r.waitJS(t, item+` && `+dot)
		items, dots = append(items, item), append(dots, dot)
	}
	// Both run at once. A reload reads the marks from the listing, not
	// only from the stream.
	r.openReady(t, "/", items[0]+` && `+dots[0]+` && `+dots[1])
	if n := r.count(t, `.side-list .run-dot`); n != 2 { // the home page marks them too
		t.Errorf("%d running dots, want 2", n)
	}
	close(holds[0])
	r.waitJS(t, `!`+dots[0]+` && `+dots[1])
	close(holds[1])
	r.waitJS(t, items[1]+` && !`+dots[1])
}

// TestCopyIDAndPath uses the real clipboard (permission granted through
// the DevTools protocol) for the header's copy actions.
func testCopyIDAndPath(t *testing.T, r *rig) {
	r.run(t, cdpCall(emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}))
	for _, p := range []string{"clipboard-read", "clipboard-write"} {
		r.run(t, setPermission(cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: p, AllowWithoutSanitization: true},
			Setting:    cdpbrowser.PermissionSettingGranted, Origin: r.base}))
	}
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row') && document.querySelector('.sess-facts .cwd').textContent`)
	for _, c := range []struct{ item, want string }{{"Copy id", basicID}, {"Copy path", r.sessionFile(t, basicID)}} {
		eval[bool](t, r.browser, `(window.testToasts = [], navigator.clipboard.writeText('').then(() => true))`)
		r.click(t, `.menu > button`)
		r.waitJS(t, `document.querySelector('.menu-pop')`)
		eval[bool](t, r.browser, fmt.Sprintf(`([...document.querySelectorAll('.menu-pop button')].find(b => b.textContent === %q).click(), true)`, c.item))
		r.waitJS(t, toastShown("Copied "+strings.TrimPrefix(c.item, "Copy ")))
		if got := eval[string](t, r.browser, `navigator.clipboard.readText()`); got != c.want {
			t.Errorf("%s put %q on the clipboard, want %q", c.item, got, c.want)
		}
		if n := r.count(t, `.menu-pop`); n != 0 {
			t.Errorf("%s left the menu open", c.item)
		}
	}
	// A code block's copy button copies the code.
	eval[bool](t, r.browser, `(window.testToasts = [], navigator.clipboard.writeText('').then(() => true))`)
	r.click(t, `.row .tool summary`)
	r.click(t, `.row .tool .code-bar .btn-link`)
	r.waitJS(t, `document.querySelector('.row .tool .code-bar .btn-link').textContent === 'copied'`)
	code := eval[string](t, r.browser, `document.querySelector('.row .tool .code pre').textContent`)
	if got := eval[string](t, r.browser, `navigator.clipboard.readText()`); got != code || !strings.Contains(got, "export const a = 1") {
		t.Errorf("copy put %q on the clipboard, the block shows %q", got, code)
	}
}
