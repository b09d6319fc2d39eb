package web

import (
	"cmp"
	"fmt"
	"image/color"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/app"
	"piweb/internal/demo"
	"piweb/internal/fakellm"
	"piweb/internal/server"
)

// shotVariant is one viewport and colour scheme a scene is taken in.
type shotVariant struct {
	w, h   int64
	scheme string
}

var shotVariants = []shotVariant{{1280, 800, "light"}, {1280, 800, "dark"}, {390, 844, "light"}, {390, 844, "dark"}}

// shootAll photographs the page as it is in every variant, into
// /tmp/piweb-shots/<name>-<width>-<scheme>.png, and leaves the browser at
// the default viewport in light.
func shootAll(t testing.TB, b *browser, name string) {
	t.Helper()
	eachShot(t, b, 0, func(w int64, scheme string) { b.screenshot(t, shotName(name, w, scheme)) })
}

// eachShot puts the page in every variant (with height h in place of the
// variant's, unless h is 0), lets it settle and calls shoot with the
// variant's width and scheme; then it leaves the browser at the default
// viewport in light.
func eachShot(t testing.TB, b *browser, h int64, shoot func(w int64, scheme string)) {
	t.Helper()
	for _, v := range shotVariants {
		b.run(t, chromedp.EmulateViewport(v.w, cmp.Or(h, v.h)), emulateScheme(v.scheme), chromedp.Sleep(350*time.Millisecond))
		shoot(v.w, v.scheme)
	}
	b.run(t, chromedp.EmulateViewport(1280, 800), emulateScheme("light"))
}

// shotName is a variant's screenshot's name: name-width-scheme.
func shotName(name string, w int64, scheme string) string {
	return fmt.Sprintf("%s-%d-%s", name, w, scheme)
}

// TestShotSet takes the standard screenshots of the app (reading screens
// over the fixtures, chat screens with real pi and the fake LLM) at 1280
// and 390 pixels wide (a phone), light and dark, for a person to look at when the
// design changes:
//
//	PIWEB_SHOTS=1 go test ./internal/web -run TestShotSet -count=1
func TestShotSet(t *testing.T) {
	needShots(t)
	t.Run("reading", shootReading)
	t.Run("chat", shootChat)
	t.Run("pi1", shootPi1)
}

// partialSearches makes the page's search answers say partial, as one
// that stopped at its time budget does (the budget cannot be met on
// purpose in a real search of the fixtures).
const partialSearches = `const f = window.fetch; window.fetch = async (...a) => {
  const r = await f(...a);
  if (!String(a[0]).includes('/api/search')) return r;
  const j = await r.json();
  return new Response(JSON.stringify({ ...j, partial: true, countCapped: true }), { status: r.status, headers: { 'content-type': 'application/json' } });
}`

func shootReading(t *testing.T) {
	r := newRig(t)
	rich := writeRichSession(t, r.dir)
	r.waitIndexed(t, rich)
	scenes := []struct{ name, path, do, wait string }{ // do runs once the page shows, then wait must hold
		{"home", "/", "", `document.querySelector('.recent li')`},
		{"tools", "/s/" + rich, "", `document.querySelector('.row .tool')`},
		{"thinking", "/s/" + rich, `document.querySelectorAll('.thinking').forEach((d) => { d.open = true; })`, `document.querySelector('.thinking[open]')`},
		{"compaction", "/s/" + compactID, `document.querySelector('.card.compaction .card-head button').click()`, `document.querySelector('.hidden-history .row')`},
		{"tree", "/s/" + basicID, `document.querySelector('.sess-actions button[title^=Tree]').click()`, `document.querySelector('.tree .tnode')`},
		{"search", "/", `document.querySelector('.search-btn').click()`, `document.querySelector('.dialog.search input')`},
		{"search-filters", "/", `document.querySelector('.search-btn').click()`, `document.querySelector('.dialog.search input')`},
		{"search-partial", "/", partialSearches + `; document.querySelector('.search-btn').click()`, `document.querySelector('.dialog.search input')`},
		{"files", "/s/" + rich, `document.querySelector('.sess-actions button[title^=Files]').click()`, `document.querySelector('.fnode')`},
		{"usage", "/usage", "", `document.querySelector('.grid tbody tr')`},
		{"actions-menu", "/s/" + basicID, `document.querySelector('.sess-menu-btn').click()`, `document.querySelector('.menu-pop')`},
		{"more-menu", "/s/" + basicID, `document.querySelector('.chat-more-btn').click()`, `document.querySelector('.chat-menu:not([hidden])')`},
	}
	for _, s := range scenes {
		t.Run(s.name, func(t *testing.T) {
			r.reset(t)
			r.openReady(t, s.path, `document.querySelector('.conv .row, .recent li, .grid tbody tr')`)
			if s.do != "" {
				eval[any](t, r.browser, `(() => { `+s.do+`; return true; })()`)
			}
			r.waitJS(t, s.wait)
			if s.name == "search" {
				r.run(t, chromedp.SendKeys(`.dialog.search input`, "session"))
				r.waitJS(t, `document.querySelector('.hit mark')`)
			}
			if s.name == "search-filters" { // chips, a warning, hits grouped by session
				r.run(t, chromedp.SendKeys(`.dialog.search input`, "the branch:current colour:red"))
				r.waitJS(t, `document.querySelector('.hit mark') && document.querySelector('.chip.on') && document.querySelector('.search-warn')`)
			}
			if s.name == "search-partial" { // the answer of a search that stopped at its budget
				r.run(t, chromedp.SendKeys(`.dialog.search input`, "the"))
				r.waitJS(t, `document.querySelector('.hit mark') && document.querySelector('.search-partial')`)
			}
			if s.name == "files" {
				eval[bool](t, r.browser, `([...document.querySelectorAll('.fnode')].find((b) => b.textContent === 'main.go').click(), true)`)
				r.waitJS(t, `document.querySelector('.viewer .src .tok-k')`)
			}
			shootAll(t, r.browser, s.name)
			r.checkConsole(t)
		})
	}
	t.Run("damaged", func(t *testing.T) {
		id, _ := damagedSession(t, r.dir)
		r.waitIndexed(t, id)
		r.reset(t)
		r.openReady(t, "/s/"+id, `document.querySelector('.damage') && document.querySelector('.row')`)
		shootAll(t, r.browser, "damaged")
		r.checkConsole(t)
	})
	t.Run("trash", func(t *testing.T) {
		gone := writeSession(t, r.dir, "/tmp/binned", []map[string]any{{"role": "user", "content": "a session deleted from the page, restorable from the Trash", "timestamp": 1764583200000}})
		r.waitIndexed(t, gone)
		r.reset(t)
		eval[bool](t, r.browser, `fetch('/api/sessions/`+gone+`', {method: 'DELETE', headers: {'Content-Type': 'application/json'}, body: '{}'}).then((r) => r.ok)`)
		r.openReady(t, "/trash", `document.querySelector('.trash-item .trash-actions')`)
		shootAll(t, r.browser, "trash")
		r.checkConsole(t)
	})
	t.Run("export", func(t *testing.T) {
		r.reset(t)
		page := eval[string](t, r.browser, `fetch('/api/sessions/`+rich+`/export?format=html').then(r => r.text())`)
		path := filepath.Join(t.TempDir(), "export.html")
		os.WriteFile(path, []byte(page), 0o644)
		r.run(t, chromedp.Navigate("file://"+path))
		r.waitJS(t, `document.querySelector('article.msg')`)
		shootAll(t, r.browser, "export")
	})
	t.Run("drawer", func(t *testing.T) {
		r.reset(t)
		r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
		for _, scheme := range []string{"light", "dark"} {
			r.run(t, chromedp.EmulateViewport(390, 844), emulateScheme(scheme))
			r.click(t, `.sess-head .only-mobile`)
			r.run(t, chromedp.Sleep(400*time.Millisecond))
			r.screenshot(t, "drawer-390-"+scheme)
			eval[bool](t, r.browser, `(document.querySelector('.scrim').click(), true)`)
		}
	})
}

// writeRichSession writes a session with most kinds of content, in a
// folder of its own for the files panel, and returns its id.
func writeRichSession(t *testing.T, agentDir string) string {
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main\n\nimport \"fmt\"\n\n// main greets.\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"), 0o644)
	os.WriteFile(filepath.Join(cwd, "README.md"), []byte("# Demo\n\nA *small* project.\n"), 0o644)
	img := map[string]any{"type": "image", "data": onePixel, "mimeType": "image/png"}
	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}
	}
	result := func(id, name, text string, isErr bool) map[string]any {
		return map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name, "content": []any{map[string]any{"type": "text", "text": text}}, "isError": isErr, "timestamp": 5}
	}
	long := "Here is a plan with a very long line of code that must not widen the page: `" + fmt.Sprint(make([]int, 40)) + "`\n\n" +
		"| step | what | status |\n|---|---|---|\n| 1 | read the handler | done |\n| 2 | change the route table and its tests | next |\n\n" +
		"```go\nfunc Handler(dev bool, dir string) http.Handler { return http.FileServer(http.Dir(dir)) } // a long comment that goes on and on\n```"
	return writeSession(t, agentDir, cwd, []map[string]any{
		{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Look at this screenshot and fix the greeting in main.go"}, img}, "timestamp": 1},
		{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "The user wants the greeting changed. I should read main.go first, then edit the string, then run it."},
			map[string]any{"type": "text", "text": "I'll read the file first."},
			call("c1", "read", map[string]any{"path": "main.go"}),
		}, "api": "x", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage(), "stopReason": "toolUse", "timestamp": 2},
		result("c1", "read", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n", false),
		{"role": "assistant", "content": []any{
			call("c2", "edit", map[string]any{"path": "main.go", "edits": []any{map[string]any{"oldText": "\tfmt.Println(\"hello\")", "newText": "\tfmt.Println(\"hello, world\")"}}}),
			call("c3", "bash", map[string]any{"command": "go run . && go vet ./... && echo a-rather-long-command-line-that-overflows-the-summary-on-a-phone"}),
			call("c4", "write", map[string]any{"path": "NOTES.md", "content": "# Notes\n\n- greeting changed\n"}),
		}, "api": "x", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage(), "stopReason": "toolUse", "timestamp": 3},
		result("c2", "edit", "Successfully replaced text", false),
		result("c3", "bash", "hello, world\n\nCommand exited with code 0", false),
		result("c4", "write", "wrote", false),
		{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": long}},
			"api": "x", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": usage(), "stopReason": "stop", "timestamp": 4},
	})
}

func shootChat(t *testing.T) {
	r := newChatRig(t)
	r.llm.Enqueue(fakellm.Text("Sure. Here is **what I found**:\n\n- the handler is in `web.go`\n- the tests are in `web_test.go`"))
	id := r.startSession(t, "Where is the web handler?")
	r.waitAnswer(t, "what I found")

	t.Run("new session dialog", func(t *testing.T) {
		r.open(t, "/")
		r.click(t, ".new-session")
		r.waitJS(t, `document.querySelector('.new-session-dialog [name=cwd]')?.value`)
		shootAll(t, r.browser, "new-session")
		r.key(t, "\x1b")
	})
	t.Run("models editor", func(t *testing.T) {
		r.open(t, "/s/"+id)
		r.click(t, ".chat-controls .act-models")
		r.waitJS(t, `document.querySelectorAll('.models-dialog .models-table tbody tr').length > 0`)
		shootAll(t, r.browser, "models")
		r.key(t, "\x1b")
	})
	t.Run("image for a text-only model", func(t *testing.T) {
		r.open(t, "/s/"+id)
		img := writePNG(t, t.TempDir(), "red.png", color.RGBA{255, 0, 0, 255})
		r.run(t, chromedp.SetUploadFiles(`.composer input[type=file]`, []string{img}))
		r.waitJS(t, `document.querySelector('.image-warn')`)
		shootAll(t, r.browser, "image-warn")
		r.click(t, ".image-warn .image-drop")
	})
	t.Run("demo banner", func(t *testing.T) {
		d, err := demo.Seed(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		srv := newServer(t, server.Options{Addr: "127.0.0.1:0", Web: Handler(false, ""), Demo: true,
			DemoRealDir: t.TempDir(), LeaveDemo: func() {}}, app.Config{AgentDir: d.AgentDir, Catalog: indexCatalog(t, d.AgentDir)})
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		b := newBrowser(t, hs.URL)
		b.openReady(t, "/s/"+d.Sessions[0], `document.querySelector('.demo-banner .demo-leave') && document.querySelector('.row')`)
		shootAll(t, b, "demo")
		eval[bool](t, b, `(document.querySelector('.demo-banner .demo-leave').click(), true)`)
		b.waitJS(t, `document.querySelector('.demo-confirm')`)
		shootAll(t, b, "demo-confirm")
	})
	t.Run("extension dialog", func(t *testing.T) {
		r.open(t, "/s/"+id)
		r.send(t, "/ask-colour")
		r.waitJS(t, `document.querySelectorAll('.ext-card .ext-option').length === 3`)
		shootAll(t, r.browser, "ext-dialog")
		r.click(t, `.ext-card .ext-option`)
		r.waitJS(t, `!document.querySelector('.ext-card')`)
	})
	t.Run("streaming", func(t *testing.T) {
		reply, release := holdReply(longText + "\n\n" + longText)
		defer release()
		r.llm.Enqueue(reply)
		r.send(t, "write a long answer")
		r.waitJS(t, `document.querySelector('.live-msg')?.innerText.includes('Alpha') && document.querySelector('.phase-line')`)
		shootAll(t, r.browser, "streaming")
		release()
		r.waitIdle(t)
	})
	t.Run("tool running", func(t *testing.T) {
		r.llm.Enqueue(fakellm.Tools(fakellm.Bash("echo working on it; sleep 6")), fakellm.Text("Done."))
		r.send(t, "run something slow")
		r.waitJS(t, `document.querySelector('.tool .live-out')?.textContent.includes('working')`)
		shootAll(t, r.browser, "tool-running")
		r.waitAnswer(t, "Done.")
	})
	t.Run("editing", func(t *testing.T) { // last: pi stays at the branch point
		eval[bool](t, r.browser, `(() => { const b = document.querySelectorAll('.row[data-role=user] .edit-here'); b[b.length - 1].click(); return true; })()`)
		r.waitJS(t, `location.search !== '' && document.querySelector('.composer textarea')?.value !== ''`)
		shootAll(t, r.browser, "editing")
	})
}
