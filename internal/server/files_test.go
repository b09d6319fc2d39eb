package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/session"
)

// TestFilesMissingCwd: the root listing of a session whose folder is gone
// answers that it is missing; anything below it stays an error, and so do
// bad paths.
func TestFilesMissingCwd(t *testing.T) {
	r := newRig(t, Options{})
	dark := r.find("Dark theme")
	file := filepath.Join(r.d.Root, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cwds := map[string]string{
		"gone":         filepath.Join(r.d.Root, "gone"),
		"under a file": filepath.Join(file, "x"),
		"relative":     "proj",
	}
	for name, cwd := range cwds {
		t.Run(name, func(t *testing.T) {
			id := newSessionIn(t, r, filepath.Dir(dark["path"].(string)), cwd)
			base := "/api/sessions/" + id
			for _, q := range []string{"", "?path=", "?path=.", "?path=./"} {
				got := r.json("GET", base+"/files"+q, nil, 200)
				want := map[string]any{"path": "", "entries": []any{}, "missing": true}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("files%s (-want +got):\n%s", q, diff)
				}
			}
			for _, c := range []struct {
				url    string
				status int
			}{
				{"/files?path=src", 404}, {"/file?path=README.md", 404}, {"/files/events", 404},
				{"/files?path=..", 403}, {"/files?path=/etc", 403},
			} {
				r.json("GET", base+c.url, nil, c.status)
			}
		})
	}
	if got := r.json("GET", "/api/sessions/"+dark["id"].(string)+"/files", nil, 200); got["missing"] != false {
		t.Errorf("an existing folder: missing %v", got["missing"])
	}
}

// newSessionIn writes a one-message session with cwd into dir and waits
// until the server lists it.
func newSessionIn(t *testing.T, r *rig, dir, cwd string) string {
	t.Helper()
	id := session.NewSessionID()
	header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}`, id, cwd)
	body := `{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	if _, err := session.NewFile(dir, []byte(header+"\n"+body+"\n")); err != nil {
		t.Fatal(err)
	}
	r.sync()
	r.json("GET", "/api/sessions/"+id, nil, 200)
	return id
}
