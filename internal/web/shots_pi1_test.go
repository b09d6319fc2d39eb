package web

import (
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/testkit"
)

// shootPi1 photographs what pi 1.x writes, read from a file pi 1.6.0 wrote
// while retrying a failing prompt (testdata/chat/retry-1.6.0.jsonl): the
// system prompt card closed and open, the retried attempts greyed, and
// the composer's command list with the pi-missing banner (this rig has no
// pi).
func shootPi1(t *testing.T) {
	r := newRig(t)
	id := writePi1Session(t, r)
	r.openReady(t, "/s/"+id, `document.querySelector('.conv .row.omitted') && document.querySelector('.system-prompt')`)
	shootAll(t, r.browser, "pi1-retried")
	eval[bool](t, r.browser, `(document.querySelector('.system-prompt').open = true, true)`)
	shootAll(t, r.browser, "pi1-system")
	eval[bool](t, r.browser, `(document.querySelector('.system-prompt').open = false, true)`)
	cr := &chatRig{browser: r.browser}
	cr.typeIn(t, "/")
	r.waitJS(t, `document.querySelector('.completions li')`)
	shootAll(t, r.browser, "pi1-commands")
	r.expectConsole("status of 503")
}

// writePi1Session puts the session pi 1.6.0 wrote while retrying a
// failing prompt (testdata/chat/retry-1.6.0.jsonl: a system message, the
// prompt, three attempts) into the rig's sessions and returns its id once
// it is listed.
func writePi1Session(t *testing.T, r *rig) string {
	t.Helper()
	b := testkit.ReadFile(t, filepath.Join("testdata", "chat", "retry-1.6.0.jsonl"))
	dir := filepath.Join(r.dir, "sessions", "--home-user-lab-work--")
	os.MkdirAll(dir, 0o755)
	const id = "01a23c3a-7a6f-7194-b4a7-c585c347c9f7"
	if err := os.WriteFile(filepath.Join(dir, "2026-12-03T14-06-35-121Z_"+id+".jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r.waitIndexed(t, id)
	return id
}
