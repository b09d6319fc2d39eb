package server

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

// TestNonFiniteNumbers: sessions holding numbers beyond a double's range
// (Infinity to JSON.parse) in message times, entry times, usage and cost
// are listed, read, searched, counted in usage and exported, never a 500
// (they panicked serve in the index's row encoding).
func TestNonFiniteNumbers(t *testing.T) {
	r := newRig(t, Options{})
	cases := []struct{ msgTime, entryTime, tokens, cost string }{
		{"1e400", `"2026-01-02T03:04:07.000Z"`, "1", "1"},
		{"-1e400", "1e400", "1e400", "-1e400"},
		{"1e300", `"2026-01-02T03:04:07.000Z"`, "1.7e308", "1.7e308"},
	}
	for i, c := range cases {
		id := fmt.Sprintf("0b0e0f00-0000-4000-8000-00000000000%d", i)
		hdr := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-02T03:04:05.006Z","cwd":"/w"}`
		user := `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":"hello infinity","timestamp":` + c.msgTime + `}}`
		asst := `{"type":"message","id":"a1","parentId":"u1","timestamp":` + c.entryTime + `,"message":{"role":"assistant","content":[{"type":"text","text":"big"}],"provider":"p","model":"m","usage":{"input":` + c.tokens + `,"output":` + c.tokens + `,"cacheRead":0,"cacheWrite":0,"totalTokens":` + c.tokens + `,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":` + c.cost + `}},"stopReason":"stop","timestamp":1767323047000}}`
		dir := filepath.Join(r.d.AgentDir, "sessions", "--w--")
		f := filepath.Join(dir, "2026-01-02T03-04-05-006Z_"+id+".jsonl")
		testkit.WriteFile(t, f, hdr+"\n"+user+"\n"+asst+"\n")
	}
	r.sync()
	paths := []string{"/api/sessions", "/api/projects", "/api/search?q=infinity", "/api/usage"}
	for i := range cases {
		id := fmt.Sprintf("0b0e0f00-0000-4000-8000-00000000000%d", i)
		for _, p := range []string{"", "/context", "/entries", "/export", "/export?format=html", "/export?format=md"} {
			paths = append(paths, "/api/sessions/"+id+p)
		}
	}
	for _, p := range paths {
		resp := r.do("GET", p, nil)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d %s", p, resp.StatusCode, b)
		}
		if p == "/api/search?q=infinity" && strings.Count(string(b), "hello infinity") < len(cases) {
			t.Errorf("GET %s: not every session found: %s", p, b)
		}
	}
}
