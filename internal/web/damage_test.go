package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

// damagedSession writes a session whose file has a line that is not JSON
// (line 6), orphan entries (lines 7 and 8: their parents do not exist;
// line 8 without a time) and a last line cut short (line 9).
func damagedSession(t *testing.T, agentDir string) (id, file string) {
	id = writeSession(t, agentDir, "/tmp/damaged",
		exchanges(1764583200000, 1000, "first question", "first answer", "second question", "second answer"))
	file = sessionPath(t, agentDir, id)
	testkit.AppendFile(t, file, "{\"type\":\"message\",\"id\":\"bad\n")
	testkit.AppendFile(t, file, `{"type":"message","id":"o0000001","parentId":"gone0000","timestamp":"2026-12-01T10:05:00.000Z","message":{"role":"user","content":"orphan question","timestamp":1764583500000}}`+"\n")
	testkit.AppendFile(t, file, `{"type":"message","id":"o0000002","parentId":"gone0001","message":{"role":"user","content":"orphan without time","timestamp":0}}`+"\n")
	testkit.AppendFile(t, file, `{"type":"message","id":"t0000001","parentId":"o0000001","timestamp":"2026-12-01T10:06:00.000Z","message":{"role":"assi`)
	return id, file
}

// testDamagedFile opens a damaged file: a banner names the lines and what
// is wrong with them, no 1970 date shows, and the repair (after a
// confirmation) rewrites the file as piweb check --repair does, keeping
// the original as a backup.
func testDamagedFile(t *testing.T, r *rig) {
	id, file := damagedSession(t, r.dir)
	orig, _ := os.ReadFile(file)
	r.openSession(t, id, `document.querySelector('.damage') && document.querySelector('.row')`)
	banner := r.text(t, `.damage`)
	for _, want := range []string{"line 6: not valid JSON", "line 7: an entry whose parent is missing", "line 8: an entry whose parent is missing", "line 9: cut short"} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner %q lacks %q", banner, want)
		}
	}
	if strings.Contains(eval[string](t, r.browser, `document.body.innerText`), "1970") {
		t.Error("a 1970 date is shown")
	}
	// Cancelling changes nothing.
	r.click(t, `.damage .repair`)
	r.click(t, `.dialog.confirm .btn:not(.primary)`)
	r.waitJS(t, `!document.querySelector('.dialog.confirm')`)
	if now, _ := os.ReadFile(file); string(now) != string(orig) {
		t.Fatal("cancelled repair changed the file")
	}
	r.click(t, `.damage .repair`)
	r.click(t, `.dialog.confirm .primary`)
	r.waitJS(t, `!document.querySelector('.damage')`)
	r.waitJS(t, toastShown("Repaired"))
	// The orphan is linked to the entry before it: the whole history shows.
	r.waitJS(t, `document.querySelector('.conv').innerText.includes('first answer') && document.querySelector('.conv').innerText.includes('orphan question')`)
	backups, _ := filepath.Glob(file + ".piweb-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != string(orig) {
		t.Error("the backup is not the original")
	}
	now, _ := os.ReadFile(file)
	if strings.Contains(string(now), `"id":"bad`) || strings.Contains(string(now), "gone0000") {
		t.Errorf("repaired file still damaged:\n%s", now)
	}
}
