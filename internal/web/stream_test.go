package web

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestSixConnections: a session with the files panel, eight folders
// expanded, a file shown, search used and a second tab on the same session
// must leave every request answering. Chromium allows six connections per
// host; with one event stream per folder or file the page would hang.
// The page holds one stream per tab and subscribes to
// topics over it.
func TestSixConnections(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newRig(t)
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main\n"), 0o644)
	for i := range 8 {
		dir := filepath.Join(cwd, fmt.Sprint("d", i))
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprint("f", i, ".txt")), []byte("x\n"), 0o644)
	}
	id := writeSession(t, r.dir, cwd, []map[string]any{{"role": "user", "content": "hello connections", "timestamp": 1}})
	r.openSession(t, id, `document.querySelector('.row')`)
	r.click(t, `.sess-actions button[title^=Files]`)
	for i := range 8 {
		r.waitJS(t, fmt.Sprintf(`[...document.querySelectorAll('.fnode.dir')].some(b => b.textContent.endsWith('d%d'))`, i))
		eval[bool](t, r.browser, fmt.Sprintf(`([...document.querySelectorAll('.fnode.dir')].find(b => b.textContent.endsWith('d%d')).click(), true)`, i))
		r.waitJS(t, fmt.Sprintf(`[...document.querySelectorAll('.fnode')].some(b => b.textContent === 'f%d.txt')`, i))
	}
	eval[bool](t, r.browser, `([...document.querySelectorAll('.fnode')].find(b => b.textContent === 'main.go').click(), true)`)
	r.waitJS(t, `document.querySelector('.viewer .src')`)
	r.run(t, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	r.waitJS(t, `document.querySelector('.dialog.search input')`)
	r.run(t, chromedp.SendKeys(`.dialog.search input`, "connections"))
	r.waitJS(t, `performance.getEntriesByType('resource').some(e => e.name.includes('/api/search'))`)
	r.run(t, chromedp.KeyEvent("\x1b"))

	ctx2, cancel := chromedp.NewContext(r.ctx)
	defer cancel()
	tab2 := &browser{t: t, ctx: ctx2, base: r.base}
	if err := chromedp.Do(ctx2); err != nil { // the tab lives as long as ctx2
		t.Fatal(err)
	}
	tab2.open(t, "/s/"+id)
	tab2.run(t, cdpCall(page.BringToFront, cdp.Empty{})) // a background tab draws nothing
	tab2.waitJS(t, `document.querySelector('.row')`)
	tab2.run(t, chromedp.Click(`.sess-actions button[title^=Files]`))
	tab2.waitJS(t, `[...document.querySelectorAll('.fnode.dir')].some(b => b.textContent.endsWith('d0'))`)
	eval[bool](t, tab2, `([...document.querySelectorAll('.fnode.dir')].find(b => b.textContent.endsWith('d0')).click(), true)`)
	tab2.waitJS(t, `[...document.querySelectorAll('.fnode')].some(b => b.textContent === 'f0.txt')`)

	probe := fmt.Sprintf(`(async (id) => {
		const urls = ['/api/status', '/api/sessions/' + id, '/api/sessions/' + id + '/files?path=d3',
			'/api/sessions/' + id + '/context', '/api/search?q=connections', '/api/sessions'];
		const failed = [];
		await Promise.all(urls.map(async (u) => {
			try {
				const r = await fetch(u, { signal: AbortSignal.timeout(5000) });
				await r.text();
				if (!r.ok) failed.push(u + ' ' + r.status);
			} catch (e) { failed.push(u + ' ' + e.name); }
		}));
		return failed.join(', ');
	})(%q)`, id)
	for name, tab := range map[string]*browser{"first tab": r.browser, "second tab": tab2} {
		start := time.Now()
		if failed := eval[string](t, tab, probe); failed != "" {
			t.Errorf("%s: requests not answered after %v: %s", name, time.Since(start), failed)
		}
	}
	if n := eval[int](t, r.browser, `performance.getEntriesByType('resource').filter(e => e.initiatorType === 'other' && e.name.includes('/events')).length`); n != 0 {
		t.Errorf("first tab opened %d per-topic event streams", n)
	}
	r.open(t, "/") // close the streams before the folder is removed
	tab2.open(t, "/")
}
