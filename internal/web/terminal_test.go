package web

import (
	"context"
	"fmt"
	cdpbrowser "github.com/chromedp/cdproto/browser"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/app"
	"piweb/internal/server"
	"piweb/internal/sessionstore"
	"piweb/internal/terminal"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// workspaceRig is the app with terminals on, over an agent dir holding one
// session whose folder exists.
type workspaceRig struct {
	*browser
	srv   *httptest.Server
	terms *terminal.Manager
	id    string
	cwd   string
	dir   string // pi's agent dir
}

func newWorkspaceRig(t *testing.T) *workspaceRig {
	t.Helper()
	requireChromium(t)
	dir, cwd := t.TempDir(), t.TempDir()
	id := pisession.NewSessionID()
	header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}`, id, cwd)
	msg := `{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"workspace test","timestamp":1}}`
	call := fmt.Sprintf(`{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2026-12-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call1","name":"read","arguments":{"path":%q}}],"provider":"fake","model":"fake-model","stopReason":"toolUse","timestamp":2}}`, filepath.Join(cwd, "notes.md"))
	result := `{"type":"message","id":"aa000003","parentId":"aa000002","timestamp":"2026-12-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"call1","toolName":"read","content":[{"type":"text","text":"# Notes"}],"isError":false,"timestamp":3}}`
	if _, err := sessionstore.NewFile(filepath.Join(dir, "sessions", pisession.EncodeCwd(cwd)), []byte(header+"\n"+msg+"\n"+call+"\n"+result+"\n")); err != nil {
		t.Fatal(err)
	}
	terms := terminal.New(terminal.Options{Shell: "/bin/sh", Env: []string{"PATH=/usr/bin:/bin", "PS1=$ ", "HOME=" + cwd},
		KillAfter: 500 * time.Millisecond})
	srv := newServer(t, server.Options{Addr: "127.0.0.1:0", Web: Handler(false, "")},
		app.Config{AgentDir: dir, Catalog: indexCatalog(t, dir), Terminals: terms})
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	b := newBrowser(t, ts.URL)
	t.Cleanup(func() { b.noConsoleErrors(t) })
	return &workspaceRig{browser: b, srv: ts, terms: terms, id: id, cwd: cwd, dir: dir}
}

// rows is the text the visible terminal shows.
func (r *workspaceRig) rows(t *testing.T) string {
	return eval[string](t, r.browser, `[...document.querySelectorAll('.term-wrap:not([hidden]) .xterm-rows')].map((e) => e.innerText).join('\n')`)
}

func (r *workspaceRig) waitRows(t *testing.T, want string) {
	t.Helper()
	testkit.Eventually(t, func() error {
		if got := r.rows(t); !strings.Contains(got, want) {
			return fmt.Errorf("terminal shows %q", got)
		}
		return nil
	}, 20*time.Second, "the terminal to show "+want)
}

// typeTerm types into the visible terminal as a keyboard does.
func (r *workspaceRig) typeTerm(t *testing.T, s string) {
	t.Helper()
	r.waitJS(t, `document.querySelector('.term-wrap[data-status="open"]:not([hidden]) .xterm-helper-textarea')`)
	eval[bool](t, r.browser, `(document.querySelector('.term-wrap:not([hidden]) .xterm-helper-textarea').focus(), true)`)
	(&chatRig{browser: r.browser}).key(t, s)
}

var sizeRE = regexp.MustCompile(`size=(\d+)x(\d+)\.`)

// size asks the shell for its terminal's size.
func (r *workspaceRig) size(t *testing.T, mark string) string {
	t.Helper()
	r.typeTerm(t, "echo size=$(stty size | tr ' ' x). "+mark+"\r")
	var got string
	testkit.Eventually(t, func() bool {
		text := r.rows(t)
		i := strings.LastIndex(text, mark)
		if i < 0 {
			return false
		}
		m := sizeRE.FindAllStringSubmatch(text, -1)
		if len(m) == 0 {
			return false
		}
		got = m[len(m)-1][1] + "x" + m[len(m)-1][2]
		return strings.Count(text, mark) >= 2 // the command line and its output
	}, 20*time.Second, "stty size")
	return got
}

// TestTerminalInBrowser: the Terminal panel starts a real shell in the
// session's folder; typing `echo hi` shows it; a paste reaches the shell;
// a word selected with a double click is copied by Ctrl+Shift+C to the
// clipboard; the PTY follows the
// panel's size; a reload shows the scrollback; closing the tab ends the
// shell process; the full-page view works the same.
func TestTerminalInBrowser(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newWorkspaceRig(t)
	r.open(t, "/s/"+r.id)
	(&rig{browser: r.browser}).click(t, `.sess-actions button[title^="Terminal"]`)
	(&rig{browser: r.browser}).click(t, `.term-empty .btn.primary`)
	r.waitJS(t, `document.activeElement && document.activeElement.matches('.term-wrap:not([hidden]) .xterm-helper-textarea')`) // a started terminal has the focus
	r.typeTerm(t, "echo hi-$((40+2)) && pwd\r")
	r.waitRows(t, "hi-42")
	real, _ := filepath.EvalSymlinks(r.cwd)
	r.waitRows(t, real)

	// A paste (the browser's paste event, as Ctrl+V or Ctrl+Shift+V give)
	// goes to the shell.
	eval[bool](t, r.browser, `(() => { const ta = document.querySelector('.term-wrap:not([hidden]) .xterm-helper-textarea');
		const dt = new DataTransfer(); dt.setData('text/plain', 'echo pasted-$((3*3))\r');
		ta.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true})); return true; })()`)
	r.waitRows(t, "pasted-9")

	// Copy: a double click selects a word of the output, Ctrl+Shift+C puts
	// it on the clipboard (read back through the page).
	r.run(t, focusEmulation(), grantClipboard(r.base))
	xy := eval[[]float64](t, r.browser, `(() => {
		const rows = [...document.querySelectorAll('.term-wrap:not([hidden]) .xterm-rows > div')];
		const row = rows.find((x) => x.textContent.includes('hi-42') && !x.textContent.includes('echo'));
		const screen = document.querySelector('.term-wrap:not([hidden]) .xterm-screen').getBoundingClientRect();
		const cols = +document.querySelector('.term-wrap:not([hidden]) .term-box').dataset.size.split('x')[1];
		const rr = row.getBoundingClientRect();
		return [screen.left + (row.textContent.indexOf('hi-42') + 2.5) * screen.width / cols, rr.top + rr.height / 2]; })()`)
	r.run(t, chromedp.MouseClickXY(xy[0], xy[1], chromedp.ClickCount(2)))
	r.run(t, chromedp.KeyEvent("c", chromedp.KeyModifiers(chromedp.ModifierCtrl, chromedp.ModifierShift)))
	testkit.Eventually(t, func() error {
		if got := eval[string](t, r.browser, `navigator.clipboard.readText().catch((e) => 'error: ' + e.message)`); got != "hi-42" {
			return fmt.Errorf("clipboard %q", got)
		}
		return nil
	}, 10*time.Second, "the selection on the clipboard")

	// The shell's terminal has the size the page drew, before and after
	// the window changes.
	pageSize := func() string {
		return eval[string](t, r.browser, `document.querySelector('.term-wrap:not([hidden]) .term-box').dataset.size || ''`)
	}
	before := pageSize()
	if got := r.size(t, "m1"); got != before {
		t.Errorf("shell's size %s, page's %s", got, before)
	}
	r.run(t, chromedp.EmulateViewport(1000, 560))
	testkit.Eventually(t, func() bool { return pageSize() != before }, 20*time.Second, "the terminal to fit the new window")
	after := pageSize()
	if got := r.size(t, "m2"); got != after {
		t.Errorf("after resizing: shell's size %s, page's %s (was %s)", got, after, before)
	}
	r.screenshot(t, "terminal-panel")

	r.run(t, chromedp.Reload())
	r.waitJS(t, `document.querySelector('.xterm-rows')`)
	r.waitRows(t, "hi-42") // the scrollback, replayed by the server
	// The theme switch recolours a running terminal.
	eval[bool](t, r.browser, `(localStorage.setItem('piweb.theme', 'dark'), document.dispatchEvent(new Event('piweb-theme')), true)`)
	r.waitJS(t, `getComputedStyle(document.querySelector('.term-wrap:not([hidden]) .xterm-rows')).color === 'rgb(230, 230, 230)'`)
	eval[bool](t, r.browser, `(localStorage.removeItem('piweb.theme'), document.dispatchEvent(new Event('piweb-theme')), true)`)

	list := r.terms.List(r.id)
	if len(list) != 1 {
		t.Fatalf("%d terminals, want 1", len(list))
	}
	pid := list[0].PID
	(&rig{browser: r.browser}).click(t, `.term-tab button.x`)
	testkit.Eventually(t, func() bool { return len(r.terms.List(r.id)) == 0 }, 10*time.Second, "the terminal to end")
	testkit.Eventually(t, func() bool { return !running(pid) }, 10*time.Second, "the shell process to be gone")
	r.waitJS(t, `document.querySelector('.term-empty')`)

	r.open(t, "/s/"+r.id+"/terminal")
	(&rig{browser: r.browser}).click(t, `.term-page .term-empty .btn.primary`)
	r.typeTerm(t, "echo full-$((1+2))\r")
	r.waitRows(t, "full-3")
	testPhoneKeyBar(t, r)
}

// testPhoneKeyBar: on a phone the terminal has a key bar whose keys reach
// the shell as a keyboard sends them (an arrow as ESC [ D), and its Ctrl
// holds for the next key typed (Ctrl+U kills the line in the tty).
func testPhoneKeyBar(t *testing.T, r *workspaceRig) {
	if eval[bool](t, r.browser, `!!document.querySelector('.term-keys')?.offsetParent`) {
		t.Error("the key bar shows on a wide screen")
	}
	r.run(t, chromedp.EmulateViewport(390, 844))
	r.waitJS(t, `document.querySelector('.term-wrap:not([hidden]) .term-keys')?.offsetParent`)
	press := func(k string) {
		eval[bool](t, r.browser, `(document.querySelector('.term-wrap:not([hidden]) .term-key[data-key="`+k+`"]').dispatchEvent(new PointerEvent('pointerdown', {bubbles: true, cancelable: true})), true)`)
	}
	r.typeTerm(t, "printf %s '")
	press("←")
	r.typeTerm(t, "' | od -An -tx1\r")
	r.waitRows(t, "1b 5b 44")
	r.typeTerm(t, "echo no-way")
	press("Ctrl")
	r.typeTerm(t, "u")
	r.typeTerm(t, "echo ctrl-$((2+5))\r")
	r.waitRows(t, "ctrl-7")
	r.screenshot(t, "terminal-keys-390")
	if got := r.rows(t); strings.Contains(got, "no-wayu") {
		t.Errorf("Ctrl from the key bar was not applied: %q", got)
	}
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// grantClipboard lets origin's pages read and write the clipboard without
// a prompt.
func grantClipboard(origin string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			_, err := setPermission(cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: origin})(ctx, t)
			if err != nil {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, nil
	}
}
