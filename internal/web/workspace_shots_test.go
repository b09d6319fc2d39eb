package web

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"piweb/internal/pitest"
)

// TestWorkspaceShots: the Terminal and Changes panels at 1280 and 390 px,
// light and dark, fit the window (nothing wider than it, the panel's
// controls inside it), with screenshots in /tmp/piweb-shots to look at.
func TestWorkspaceShots(t *testing.T) {
	r := newWorkspaceRig(t)
	if _, err := exec.LookPath("git"); err != nil {
		pitest.Missing(t, "git not on PATH")
	}
	os.WriteFile(filepath.Join(r.cwd, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "start"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = r.cwd
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(r.cwd, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"a rather long line that goes on and on to see how the diff card handles it\") }\n"), 0o644)
	os.WriteFile(filepath.Join(r.cwd, "a file with a long name in a folder.txt"), []byte("x\n"), 0o644)
	if _, err := r.terms.Start(r.id, r.cwd, 80, 24); err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"light", "dark"} {
		for _, w := range []int64{1280, 390} {
			for _, p := range []string{"terminal", "changes"} {
				name := fmt.Sprintf("ws-%s-%d-%s", p, w, scheme)
				r.run(t, chromedp.EmulateViewport(w, 800), emulateScheme(scheme))
				r.open(t, "/s/"+r.id)
				eval[bool](t, r.browser, `(localStorage.setItem('piweb.panel', ''), true)`)
				r.click(t, fmt.Sprintf(`.sess-actions button[title^=%q]`, map[string]string{"terminal": "Terminal", "changes": "Changes"}[p]))
				if p == "terminal" {
					r.waitJS(t, `document.querySelector('.term-wrap[data-status="open"] .xterm-rows')`)
				} else {
					r.click(t, `.git-section details[data-path="main.go"] summary`)
					r.waitJS(t, `document.querySelector('.git-section details[data-path="main.go"] pre.diff')`)
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
		}
	}
}

func (r *workspaceRig) click(t *testing.T, sel string) { (&rig{browser: r.browser}).click(t, sel) }
