package web

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/client"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestTrashAndMissing: a session file moved away by another program shows
// a "deleted or moved outside piweb" notice (not "moved to the trash") and
// disables the composer until the file is back (issue 14.4); the Trash
// page lists deleted sessions, restores one, deletes one for good after a
// confirmation, and shows the backups with their pruning rule (14.12).
func TestTrashAndMissing(t *testing.T) {
	t.Parallel() // its own server and browser context
	d, b := demoApp(t)
	id := d.Sessions[len(d.Sessions)-1]
	var path string
	for _, p := range pisession.SessionFiles(d.AgentDir) {
		if pisession.IDFromFileName(p) == id {
			path = p
		}
	}
	b.openReady(t, "/s/"+id, `document.querySelector('.row') && document.querySelector('textarea[name=message]')`)
	// An outside append shown proves the page follows the file.
	leaf := eval[string](t, b, `fetch('/api/sessions/`+id+`').then(r => r.json()).then(d => d.leaf)`)
	testkit.AppendFile(t, path, `{"type":"message","id":"feedf00d","parentId":"`+leaf+`","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"ping from the test","timestamp":1}}`+"\n")
	b.waitJS(t, `document.body.innerText.includes('ping from the test')`)
	aside := filepath.Join(t.TempDir(), "aside.jsonl")
	if err := os.Rename(path, aside); err != nil {
		t.Fatal(err)
	}
	b.waitJS(t, `document.querySelector('.session-missing') && document.querySelector('textarea[name=message]').disabled && document.querySelector('button.send').disabled`)
	if eval[bool](t, b, `document.body.innerText.includes('moved to the trash')`) {
		t.Error("a file moved outside piweb is said to be in the trash")
	}
	if err := os.Rename(aside, path); err != nil {
		t.Fatal(err)
	}
	b.waitJS(t, `!document.querySelector('.session-missing') && !document.querySelector('textarea[name=message]').disabled`)

	// The catalog may not list the file put back yet (the page follows the
	// file itself): each delete waits until it does, through the API client
	// (a refused fetch in the page would be a console error).
	api := client.New(b.base, client.Options{})
	del := func(id string) {
		testkit.Eventually(t, func() error { _, err := api.Session(t.Context(), id); return err }, 20*time.Second, "listed")
		if _, err := api.Delete(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	del(d.Sessions[0]) // has a fork: re-pointing leaves a backup
	del(id)
	b.openReady(t, "/trash", `document.querySelectorAll('.trash-item .trash-actions').length === 2`)
	b.waitJS(t, `document.querySelector('.backup-rule').textContent.includes('older than 30 days') && document.querySelectorAll('.trash-item:not(:has(.trash-actions))').length === 1`)
	click(t, b, `.trash-item .trash-actions .btn:not(.danger)`)
	b.waitJS(t, `document.querySelectorAll('.trash-item .trash-actions').length === 1`)
	click(t, b, `.trash-item .trash-actions .btn.danger`)
	b.waitJS(t, `document.querySelector('.dialog.confirm')`)
	click(t, b, `.dialog.confirm .primary`)
	b.waitJS(t, `document.querySelectorAll('.trash-item .trash-actions').length === 0 && document.body.innerText.includes('The trash is empty')`)
	b.noConsoleErrors(t)
}

// click clicks the first element matching sel once it exists.
func click(t *testing.T, b *browser, sel string) {
	t.Helper()
	b.waitJS(t, fmt.Sprintf(`document.querySelector(%q)`, sel))
	eval[bool](t, b, fmt.Sprintf(`(document.querySelector(%q).click(), true)`, sel))
}
