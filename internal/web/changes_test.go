package web

import (
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/fakellm"
	"piweb/internal/pitest"
)

// TestChangesPanel: real pi 1.6.0 (the fake model scripting an edit tool
// call) edits a file of a git repository; the Changes panel lists it with
// git's diff, live, and the session's own changes show pi's diff of it.
// The repository's config names an fsmonitor hook: it never runs, and
// the panel says it was ignored.
func TestChangesPanel(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newPi16Rig(t)
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	hook := filepath.Join(t.TempDir(), "fsmonitor.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "README.md"}, {"commit", "-qm", "start"},
		{"config", "core.fsmonitor", hook}} {
		pitest.Git(t, r.cwd, args...)
	}
	os.WriteFile(filepath.Join(r.cwd, "notes.txt"), []byte("scratch\n"), 0o644)
	edit := fakellm.NewCall("edit", map[string]any{"path": "README.md",
		"edits": []map[string]any{{"oldText": "# proj\n", "newText": "# proj\n\nEdited by pi.\n"}}})
	r.llm.Enqueue(fakellm.Tools(edit), fakellm.Text("Edited the README."))
	r.startSession(t, "edit the readme")
	r.waitAnswer(t, "Edited the README.")

	r.click(t, `.sess-actions button[title^="Changes"]`)
	r.waitJS(t, `document.querySelector('.git-branch')?.innerText.includes('main')`)
	r.waitJS(t, `document.querySelector('.git-section details[data-path="notes.txt"]')`)
	r.waitJS(t, `document.querySelector('.git-ignored-config')?.innerText.includes('core.fsmonitor')`)
	r.click(t, `.git-section details[data-path="README.md"] summary`)
	r.waitJS(t, `document.querySelector('.git-section details[data-path="README.md"] pre.diff')?.innerText.includes('+3 Edited by pi.')`)

	// Live: a change on disk shows without a reload.
	os.WriteFile(filepath.Join(r.cwd, "later.txt"), []byte("later\n"), 0o644)
	r.waitJS(t, `document.querySelector('.git-section details[data-path="later.txt"]')`)

	r.click(t, `.changes-panel .seg button:nth-child(2)`)
	r.waitJS(t, `document.querySelector('.session-changes details[data-path="README.md"] pre.diff')?.innerText.includes('Edited by pi.')`)
	r.screenshot(t, "changes-session")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's fsmonitor hook ran")
	}
}
