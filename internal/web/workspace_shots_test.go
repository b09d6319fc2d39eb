package web

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/pitest"
)

// TestWorkspaceShots: the Terminal, Changes, Files and worktree panels and
// the sidebar's worktree grouping at 1280 and 390 px, light and dark, fit
// the window (nothing wider than it, the panel's controls inside it), with
// screenshots in /tmp/piweb-shots to look at.
func TestWorkspaceShots(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newWorkspaceRig(t)
	os.WriteFile(filepath.Join(r.cwd, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "start"}} {
		pitest.Git(t, r.cwd, args...)
	}
	os.WriteFile(filepath.Join(r.cwd, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"a rather long line that goes on and on to see how the diff card handles it\") }\n"), 0o644)
	os.WriteFile(filepath.Join(r.cwd, "a file with a long name in a folder.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(r.cwd, "notes.md"), []byte("# Notes\n\nA paragraph with `code` and a [link](https://example.com).\n\n- one\n- two\n"), 0o644)
	if _, err := r.terms.Start(r.id, r.cwd, 80, 24); err != nil {
		t.Fatal(err)
	}
	// A worktree on a long unicode branch, with a session in it: the
	// sidebar groups both sessions under the repository.
	wt := filepath.Join(filepath.Dir(r.cwd), "wt-feature-überlange-namen")
	cmd := exec.Command("git", "worktree", "add", "-q", "-b", "feature/überlange-namen-und-noch-mehr", wt)
	cmd.Dir = r.cwd
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	writeSession(t, r.dir, wt, []map[string]any{{"role": "user", "content": "work in the worktree on the long branch", "timestamp": 1}})
	for _, scheme := range []string{"light", "dark"} {
		for _, w := range []int64{1280, 390} {
			for _, p := range []string{"terminal", "changes", "files", "worktrees"} {
				name := fmt.Sprintf("ws-%s-%d-%s", p, w, scheme)
				r.run(t, chromedp.EmulateViewport(w, 800), emulateScheme(scheme))
				r.open(t, "/s/"+r.id)
				eval[bool](t, r.browser, `(localStorage.setItem('piweb.panel', ''), true)`)
				r.click(t, fmt.Sprintf(`.sess-actions button[title^=%q]`, map[string]string{"terminal": "Terminal", "changes": "Changes", "files": "Files", "worktrees": "Changes"}[p]))
				switch p {
				case "terminal":
					r.waitJS(t, `document.querySelector('.term-wrap[data-status="open"] .xterm-rows')`)
				case "changes":
					r.click(t, `.git-section details[data-path="main.go"] summary`)
					r.waitJS(t, `document.querySelector('.git-section details[data-path="main.go"] pre.diff')`)
				case "files":
					r.waitJS(t, `[...document.querySelectorAll('.files-panel .fnode')].some((e) => e.innerText.trim() === 'notes.md')`)
					eval[bool](t, r.browser, `([...document.querySelectorAll('.files-panel .fnode')].find((e) => e.innerText.trim() === 'notes.md').click(), true)`)
					r.waitJS(t, `document.querySelector('.viewer .md h1')`)
				case "worktrees":
					r.click(t, `.changes-panel .seg button:nth-child(3)`)
					r.waitJS(t, `document.querySelectorAll('.wt').length === 2`)
				}
				over := eval[string](t, r.browser, `(() => {
					const W = innerWidth, out = [];
					if (document.documentElement.scrollWidth > W) out.push('document ' + document.documentElement.scrollWidth);
					for (const e of document.querySelectorAll('.side-panel .panel-head *')) {
						const b = e.getBoundingClientRect();
						if (b.width && (b.right > W + 0.5 || b.left < -0.5)) out.push((e.className || e.tagName) + ' ' + Math.round(b.left) + '..' + Math.round(b.right));
					}
					return out.join('; ');
				})()`)
				if over != "" {
					t.Errorf("%s: outside the %d px window: %s", name, w, over)
				}
				r.screenshot(t, name)
			}
			// The sidebar (a drawer at 390 px) with the repository's group.
			r.open(t, "/s/"+r.id)
			if w == 390 {
				r.click(t, `.sess-head .only-mobile`)
			}
			r.waitJS(t, `[...document.querySelectorAll('.repo-group .wt-branch')].some((e) => e.innerText.includes('überlange'))`)
			r.run(t, chromedp.Sleep(400*time.Millisecond))
			// A long folder name must not cut the branch that names the
			// worktree down to a letter or two.
			if narrow := eval[string](t, r.browser, `[...document.querySelectorAll('.repo-group .wt-branch')].filter((e) => e.getBoundingClientRect().width < 120).map((e) => e.innerText).join(', ')`); narrow != "" {
				t.Errorf("sidebar at %d px: branch names squeezed: %s", w, narrow)
			}
			r.screenshot(t, fmt.Sprintf("ws-sidebar-%d-%s", w, scheme))
		}
	}
}

func (r *workspaceRig) click(t *testing.T, sel string) { (&rig{browser: r.browser}).click(t, sel) }
