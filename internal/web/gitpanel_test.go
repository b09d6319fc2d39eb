package web

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// gitSetup makes the workspace rig's folder a repository with main.go
// committed, then main.go changed, an untracked scratch.txt and a file
// with spaces in its path; its commit-msg hook refuses "WIP".
func gitSetup(t *testing.T, r *workspaceRig) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		pitest.Missing(t, "git not on PATH")
	}
	os.WriteFile(filepath.Join(r.cwd, "main.go"), []byte("package main\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Pi User"},
		{"config", "user.email", "pi@example.com"}, {"add", "."}, {"commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = r.cwd
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(r.cwd, ".git", "hooks", "commit-msg"),
		[]byte("#!/bin/sh\nif grep -q WIP \"$1\"; then echo 'commit-msg: no WIP commits on main' >&2; exit 1; fi\n"), 0o755)
	os.WriteFile(filepath.Join(r.cwd, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(r.cwd, "scratch.txt"), []byte("tmp\n"), 0o644)
	testkit.WriteFile(t, filepath.Join(r.cwd, "docs", "read me.md"), "# Read me\n")
}

// setValue types text into the element sel as an input event.
func (r *workspaceRig) setValue(t *testing.T, sel, text string) {
	t.Helper()
	r.waitJS(t, `document.querySelector(`+jsString(sel)+`)`)
	eval[bool](t, r.browser, `(() => { const e = document.querySelector(`+jsString(sel)+`); e.focus(); e.value = `+jsString(text)+`;
		e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
	r.waitJS(t, `document.querySelector(`+jsString(sel)+`).value === `+jsString(text))
}

// clickCommit clicks Commit once it is enabled: a click on the button
// while the stage's request is still busy, or before the message's render,
// does nothing (a flake of TestGitPanelActions: no error ever shown).
func (r *workspaceRig) clickCommit(t *testing.T) {
	t.Helper()
	r.waitJS(t, `document.querySelector('.commit-btn')?.disabled === false`)
	r.click(t, `.commit-btn`)
}

// TestGitPanelActions: in the Changes panel a file is staged, a commit
// refused by the repository's hook shows the hook's words and keeps the
// message, the next commit goes in and is listed; deleting an untracked
// file takes two confirmations. In the composer "@" completes a path
// fuzzily and quotes one with a space as pi does; the Files panel inserts
// a file's path.
func TestGitPanelActions(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newWorkspaceRig(t)
	gitSetup(t, r)
	r.open(t, "/s/"+r.id)
	eval[bool](t, r.browser, `(localStorage.setItem('piweb.panel', ''), true)`)
	r.click(t, `.sess-actions button[title^="Changes"]`)
	r.click(t, `.git-unstaged details[data-path="main.go"] .git-stage`)
	r.waitJS(t, `document.querySelector('.git-staged details[data-path="main.go"]')`)

	r.setValue(t, `.commit-msg`, "WIP: main")
	r.clickCommit(t)
	r.waitJS(t, `document.querySelector('.git-error')?.innerText.includes('no WIP commits on main')`)
	r.waitJS(t, `document.querySelector('.git-error').innerText.includes('commit-msg hook rejected') && document.querySelector('.commit-msg').value === 'WIP: main'`)
	r.expectConsole("status of 400") // the refused commit
	r.setValue(t, `.commit-msg`, "Give main a body")
	r.clickCommit(t)
	r.waitJS(t, `document.querySelector('.git-log')?.innerText.includes('Give main a body') && document.querySelector('.commit-msg').value === '' && !document.querySelector('.git-error')`)

	r.click(t, `.git-untracked details[data-path="scratch.txt"] .git-discard`)
	r.waitJS(t, `document.querySelector('.dialog.confirm h2')?.innerText === 'Delete scratch.txt?'`)
	r.click(t, `.dialog.confirm .btn.primary`)
	r.waitJS(t, `document.querySelector('.dialog.confirm h2')?.innerText === 'Delete scratch.txt for good?'`)
	if _, err := os.Stat(filepath.Join(r.cwd, "scratch.txt")); err != nil {
		t.Fatal("deleted after one confirmation")
	}
	r.click(t, `.dialog.confirm .btn.primary`)
	r.waitJS(t, `!document.querySelector('.git-untracked details[data-path="scratch.txt"]')`)
	if _, err := os.Stat(filepath.Join(r.cwd, "scratch.txt")); !os.IsNotExist(err) {
		t.Errorf("scratch.txt after two confirmations: %v", err)
	}

	r.setValue(t, `.composer textarea`, "see @readme")
	r.waitJS(t, completionLabels+`[0] === 'docs/read me.md'`)
	r.run(t, chromedp.KeyEvent(kb.Tab))
	r.waitJS(t, `document.querySelector('.composer textarea').value === 'see @"docs/read me.md" '`)
	r.click(t, `.sess-actions button[title^="Files"]`)
	r.waitJS(t, `[...document.querySelectorAll('.files-panel .fnode')].some((e) => e.innerText.trim() === 'main.go')`)
	eval[bool](t, r.browser, `([...document.querySelectorAll('.files-panel .fnode')].find((e) => e.innerText.trim() === 'main.go').click(), true)`)
	r.click(t, `.viewer-head .insert-path`)
	r.waitJS(t, `document.querySelector('.composer textarea').value === 'see @"docs/read me.md" @main.go '`)
}

// TestGitPanelShots photographs the "@" completion and the Changes panel
// (staged and unstaged files, the commit box, a hook's refusal, recent
// commits) at 1280 and 390 px, light and dark, in /tmp/piweb-shots
// (PIWEB_SHOTS set; else skipped).
func TestGitPanelShots(t *testing.T) {
	needShots(t)
	r := newWorkspaceRig(t)
	gitSetup(t, r)
	os.WriteFile(filepath.Join(r.cwd, "main_test.go"), []byte("package main\n"), 0o644)
	cmd := exec.Command("git", "add", "main_test.go")
	cmd.Dir = r.cwd
	cmd.Run()
	for _, scheme := range []string{"light", "dark"} {
		for _, w := range []int64{1280, 390} {
			r.run(t, chromedp.EmulateViewport(w, map[int64]int64{1280: 800, 390: 844}[w]), emulateScheme(scheme))
			r.open(t, "/s/"+r.id)
			eval[bool](t, r.browser, `(localStorage.setItem('piweb.panel', ''), true)`)
			r.setValue(t, `.composer textarea`, "look at @m")
			r.waitJS(t, completionLabels+`.length >= 3`)
			r.screenshot(t, fmt.Sprintf("at-complete-%d-%s", w, scheme))
			r.setValue(t, `.composer textarea`, "")
			r.click(t, `.sess-actions button[title^="Changes"]`)
			r.setValue(t, `.commit-msg`, "WIP: try the hook")
			r.click(t, `.commit-btn`)
			r.waitJS(t, `document.querySelector('.git-error')`)
			r.expectConsole("status of 400")
			r.waitJS(t, `document.querySelector('.git-log')`)
			r.screenshot(t, fmt.Sprintf("git-panel-%d-%s", w, scheme))
		}
	}
}
