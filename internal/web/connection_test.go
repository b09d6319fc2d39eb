package web

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDisconnectedRetrying: when piweb stops, the page says so at once,
// keeps showing what it had, shows no raw "Failed to fetch", and when
// piweb is back on the same address it reconnects by itself (issue 25
// item 6).
func TestDisconnectedRetrying(t *testing.T) {
	t.Parallel() // its own server
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSession(t, dir, "/tmp/conn", []map[string]any{{"role": "user", "content": "still readable", "timestamp": 1}})
	h := appHandler(t, dir, false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve := func(ln net.Listener) *http.Server {
		hs := &http.Server{Handler: h}
		go hs.Serve(ln)
		t.Cleanup(func() { hs.Close() })
		return hs
	}
	hs := serve(ln)
	b := newBrowser(t, "http://"+addr)
	b.openReady(t, "/", `document.querySelector('.sess')?.innerText.includes('still readable')`)

	hs.Close() // piweb stops: the event stream and every connection end
	b.waitJS(t, `document.querySelector('.conn-lost')?.innerText.includes('retrying')`)
	if shooting() {
		shootAll(t, b, "disconnected")
	}
	// On a phone it stays clear of the header, whose buttons still work.
	b.run(t, chromedp.EmulateViewport(390, 844))
	b.waitJS(t, `(() => { const p = document.querySelector('.conn-lost').getBoundingClientRect();
		const heads = [...document.querySelectorAll('header')].filter((h) => h.offsetParent);
		return heads.length > 0 && heads.every((h) => h.getBoundingClientRect().bottom <= p.top); })()`)
	b.run(t, chromedp.EmulateViewport(1280, 800))
	// A request that fails meanwhile is no toast: the banner says why.
	eval[bool](t, b, `import('/js/state.js').then((m) => m.loadSessions()).then(() => true)`)
	if txt := eval[string](t, b, `document.querySelector('.sess .sess-title')?.innerText + ' | ' + [...document.querySelectorAll('.toast')].map((e) => e.innerText).join(' / ')`); txt != "still readable | " {
		t.Errorf("page while disconnected: %q, want the session still listed and no toast", txt)
	}

	ln, err = net.Listen("tcp", addr) // piweb is back
	if err != nil {
		t.Skip("the address was taken meanwhile:", err)
	}
	serve(ln)
	b.waitJS(t, `!document.querySelector('.conn-lost')`)
}
