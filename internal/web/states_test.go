package web

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// testEmptyStates: with no session at all, the home page, the sidebar and
// the usage page say so instead of showing nothing; an empty folder in the
// files panel says so too.
func testEmptyStates(t *testing.T, r *rig) {
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := appServer(t, empty, false)
	r.run(t, chromedp.Navigate(srv.URL+"/"))
	r.waitJS(t, `document.querySelector('.empty-home')?.innerText.includes('No sessions yet') && document.querySelector('.side-list')?.innerText.includes('No sessions yet')`)
	if n := r.count(t, `.recent li, .home-body h2`); n != 0 {
		t.Errorf("%d recent items or headings on an empty home page", n)
	}
	r.run(t, chromedp.Navigate(srv.URL+"/usage"))
	r.waitJS(t, `document.querySelector('.usage-body')?.innerText.includes('No usage recorded')`)

	cwd := t.TempDir()
	os.Mkdir(filepath.Join(cwd, "nothing-here"), 0o755)
	id := writeSession(t, r.dir, cwd, []map[string]any{{"role": "user", "content": "empty folder", "timestamp": 1}})
	r.openSession(t, id, `document.querySelector('.row')`)
	r.click(t, `.sess-actions button[title^=Files]`)
	r.waitJS(t, `[...document.querySelectorAll('.fnode')].some((b) => b.textContent.includes('nothing-here'))`)
	eval[bool](t, r.browser, `([...document.querySelectorAll('.fnode')].find((b) => b.textContent.includes('nothing-here')).click(), true)`)
	r.waitJS(t, `document.querySelector('.files-empty')?.textContent === 'empty folder'`)
	r.open(t, "/") // close the file streams before the folder is removed
}
