package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestDeepNesting: a message nested 100,000 deep (pi's JSON.parse reads
// it) does not fail the session's routes with a 500.
func TestDeepNesting(t *testing.T) {
	r := newRig(t, Options{})
	dir := filepath.Dir(r.item("Dark theme").Path)
	id := pisession.NewSessionID()
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	lines := []string{
		fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":"/tmp"}`, id),
		`{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"deep","timestamp":1}}`,
		`{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2026-12-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x","arguments":{"a":` + deep + `}}],"timestamp":2}}`,
		`{"type":"message","id":"aa000003","parentId":"aa000002","timestamp":"2026-12-01T10:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"x","extra":` + deep + `}],"timestamp":3}}`,
	}
	if _, err := sessionstore.NewFile(dir, []byte(strings.Join(lines, "\n")+"\n")); err != nil {
		t.Fatal(err)
	}
	r.sync()
	base := "/api/sessions/" + id
	for _, u := range []string{"", "/context", "/entries", "/export?format=jsonl", "/export?format=html", "/export?format=md"} {
		if resp := r.do("GET", base+u, nil); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", u, resp.StatusCode, r.body(base+u))
		}
	}
}

func (r *rig) body(path string) string {
	resp := r.do("GET", path, nil)
	b := new(strings.Builder)
	fmt.Fprint(b, resp.StatusCode)
	buf := make([]byte, 300)
	n, _ := resp.Body.Read(buf)
	return b.String() + string(buf[:n])
}

// TestHeaderIDNotString: a session whose header id is not a string (pi
// lists it all the same) can still be opened, by the id piweb lists.
func TestHeaderIDNotString(t *testing.T) {
	r := newRig(t, Options{})
	dir := filepath.Dir(r.item("Dark theme").Path)
	for _, id := range []string{`42`, `null`, `{"a":1}`, `["x"]`, `true`} {
		t.Run(id, func(t *testing.T) {
			first := "odd header " + id
			header := `{"type":"session","version":3,"id":` + id + `,"timestamp":"2026-12-01T10:00:00.000Z","cwd":"/tmp"}`
			body := `{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":` + fmt.Sprintf("%q", first) + `,"timestamp":1}}`
			name := "2026-12-01T10-00-00-000Z_" + pisession.NewSessionID() + ".jsonl"
			testkit.WriteFile(t, filepath.Join(dir, name), header+"\n"+body+"\n")
			r.sync()
			s := r.item(first)
			sid := s.ID
			if sid == "" {
				t.Fatalf("listed without a usable id: %+v", s)
			}
			for _, u := range []string{"", "/context", "/entries"} {
				if resp := r.do("GET", "/api/sessions/"+sid+u, nil); resp.StatusCode != 200 {
					t.Errorf("%s: %s", u, r.body("/api/sessions/"+sid+u))
				}
			}
		})
	}
}
