package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestWorktreesInBrowser: with real pi 1.6.0, make a worktree of the
// session's repository on a new branch, start a session in it, see both
// sessions grouped under the repository in the sidebar with the worktree's
// branch named, and remove the worktree (asked twice: it holds uncommitted
// work).
func TestWorktreesInBrowser(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newPi16Rig(t)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "README.md"}, {"commit", "-qm", "start"}} {
		pitest.Git(t, r.cwd, args...)
	}
	r.llm.Enqueue(fakellm.Text("Hello from main."))
	mainID := r.startSession(t, "on main")
	r.waitAnswer(t, "Hello from main.")

	r.click(t, `.sess-actions button[title^="Changes"]`)
	r.click(t, `.changes-panel .seg button:nth-child(3)`)
	r.waitJS(t, `document.querySelectorAll('.wt').length === 1`)
	r.typeInput(t, `.wt-add input[name=branch]`, "feat-ü")
	r.click(t, `.wt-add button[type=submit]`)
	wt := filepath.Join(filepath.Dir(r.cwd), "proj-feat-ü")
	r.waitJS(t, `document.querySelectorAll('.wt').length === 2`)
	if _, err := os.Stat(filepath.Join(wt, "README.md")); err != nil {
		t.Fatalf("worktree on disk: %v", err)
	}

	r.llm.Enqueue(fakellm.Text("Hello from the worktree."))
	r.click(t, `.wt:nth-child(2) .wt-new`)
	r.waitJS(t, `document.querySelector('.new-session-dialog [name=cwd]')?.value === `+jsString(wt))
	r.typeInput(t, `.new-session-dialog [name=message]`, "in the worktree")
	r.click(t, `.new-session-dialog button[type=submit]`)
	r.waitAnswer(t, "Hello from the worktree.")

	r.waitJS(t, `document.querySelectorAll('.repo-group[data-repo="proj"] .group').length === 2`)
	r.waitJS(t, `[...document.querySelectorAll('.repo-group .wt-branch')].some((e) => e.innerText.includes('feat-ü'))`)
	r.screenshot(t, "worktrees-sidebar")

	os.WriteFile(filepath.Join(wt, "wip.txt"), []byte("unsaved\n"), 0o644)
	r.openReady(t, "/s/"+mainID, `document.querySelector('.sess-actions button[title^="Changes"]')`)
	eval[bool](t, r.browser, `(document.querySelector('.changes-panel') || document.querySelector('.sess-actions button[title^="Changes"]').click(), true)`)
	r.click(t, `.changes-panel .seg button:nth-child(3)`)
	r.waitJS(t, `document.querySelectorAll('.wt').length === 2`)
	r.click(t, `.wt:nth-child(2) .wt-remove`)
	r.waitJS(t, `document.querySelector('.dialog.confirm')?.innerText.includes('Remove this worktree?')`)
	r.click(t, `.dialog.confirm .btn.primary`)
	r.waitJS(t, `document.querySelector('.dialog.confirm')?.innerText.includes('uncommitted changes')`)
	if _, err := os.Stat(filepath.Join(wt, "wip.txt")); err != nil {
		t.Fatal("the worktree went before the second confirmation")
	}
	r.click(t, `.dialog.confirm .btn.primary`)
	testkit.Eventually(t, func() bool { _, err := os.Stat(wt); return os.IsNotExist(err) }, 20*time.Second, "the worktree to be removed")
	r.waitJS(t, `document.querySelectorAll('.wt').length === 1`)
}

// typeInput sets an input's or textarea's value as typing would.
func (r *chatRig) typeInput(t *testing.T, sel, text string) {
	t.Helper()
	r.waitJS(t, `document.querySelector(`+jsString(sel)+`)`)
	eval[bool](t, r.browser, `(() => { const e = document.querySelector(`+jsString(sel)+`); e.focus(); e.value = `+jsString(text)+`;
		e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
