package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/index"
	"piweb/internal/testkit"
)

// The sessions every test searches: a chat in /tmp/api that went down
// one branch (entry b2) and back (b3 from b1), and one in /tmp/web.
const (
	apiID = "0193aaaa-0000-7000-8000-000000000001"
	webID = "0193bbbb-0000-7000-8000-000000000002"
)

var apiLines = []string{
	`{"type":"session","version":3,"id":"` + apiID + `","timestamp":"2026-11-02T10:00:00.000Z","cwd":"/tmp/api"}`,
	user("b1", "", "2026-11-02T10:00:01.000Z", "why does the zanzibar migration fail"),
	assistant("b2", "b1", "2026-11-02T10:00:02.000Z", "Maybe drop the zanzibar table."),
	assistant("b3", "b1", "2026-11-02T10:00:03.000Z", "The zanzibar lock was held: release it first."),
}

var webLines = []string{
	`{"type":"session","version":3,"id":"` + webID + `","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/tmp/web"}`,
	user("w1", "", "2026-11-20T10:00:01.000Z", "style the zanzibar button "+strings.Repeat("long ", 2000)),
}

func user(id, parent, ts, text string) string {
	return entry(id, parent, ts, `{"role":"user","content":[{"type":"text","text":"`+text+`"}],"timestamp":`+ms(ts)+`}`)
}

func assistant(id, parent, ts, text string) string {
	return entry(id, parent, ts, `{"role":"assistant","content":[{"type":"text","text":"`+text+`"}],"provider":"fake","model":"fake-model","api":"openai-completions","stopReason":"stop","timestamp":`+ms(ts)+`}`)
}

// ms is an RFC 3339 time in ms since the epoch, as pi's messages have it.
func ms(ts string) string {
	t, _ := time.Parse(time.RFC3339, ts)
	return strconv.FormatInt(t.UnixMilli(), 10)
}

func entry(id, parent, ts, msg string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"` + ts + `","message":` + msg + `}`
}

// testServer is a server over an index of the two sessions.
func testServer(t testing.TB) *Server {
	t.Helper()
	agent := t.TempDir()
	for _, s := range []struct {
		dir, name string
		lines     []string
	}{{"--tmp-api--", "2026-11-02T10-00-00-000Z_" + apiID, apiLines}, {"--tmp-web--", "2026-11-20T10-00-00-000Z_" + webID, webLines}} {
		dir := filepath.Join(agent, "sessions", s.dir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.name+".jsonl"), []byte(strings.Join(s.lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	ix, err := index.Open(ctx, index.Options{AgentDir: agent, Path: filepath.Join(t.TempDir(), "index.db"),
		Getenv: func(string) string { return "" }, Log: testkit.Log(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	fresh := func(ctx context.Context) error { _, err := ix.Sync(ctx, true); return err }
	return New(Options{Index: ix, Fresh: fresh, Version: "test", Log: testkit.Log(t)})
}

// exchange sends lines to s and returns its answers, decoded.
func exchange(t testing.TB, s *Server, lines ...string) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	if err := s.Serve(context.Background(), strings.NewReader(strings.Join(lines, "\n")), &out); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		got = append(got, m)
	}
	return got
}

func TestProtocol(t *testing.T) {
	s := New(Options{})
	init := func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	}
	errAns := func(id any, code float64) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code}}
	}
	for _, tc := range []struct {
		name, in string
		want     []map[string]any // error messages are left out of the comparison
	}{
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, []map[string]any{{"jsonrpc": "2.0", "id": "p", "result": map[string]any{}}}},
		{"notifications unanswered", `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, nil},
		{"blank lines and responses", "\n  \n" + `{"jsonrpc":"2.0","id":7,"result":{}}`, nil},
		{"not JSON", `{"jsonrpc":`, []map[string]any{errAns(nil, -32700)}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, []map[string]any{errAns(nil, -32600)}},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, []map[string]any{errAns(nil, -32600)}},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, []map[string]any{errAns(nil, -32600)}},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, []map[string]any{errAns(nil, -32600)}},
		{"unknown method", `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, []map[string]any{errAns(2.0, -32601)}},
		{"unknown tool", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rm","arguments":{}}}`, []map[string]any{errAns(3.0, -32602)}},
		{"tools/call without name", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[]}`, []map[string]any{errAns(4.0, -32602)}},
		{"initialize without version", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}`, []map[string]any{errAns(5.0, -32602)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := exchange(t, s, tc.in)
			for _, g := range got {
				if e, ok := g["error"].(map[string]any); ok {
					delete(e, "message")
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, v := range []struct{ asked, got string }{{"2025-11-25", "2025-11-25"}, {"2024-11-05", "2024-11-05"}, {"2099-01-01", LatestVersion}} {
		r := exchange(t, s, init(v.asked))[0]["result"].(map[string]any)
		if r["protocolVersion"] != v.got {
			t.Errorf("asked %s: got %v, want %s", v.asked, r["protocolVersion"], v.got)
		}
	}
}

// TestHugeLine: a line over MaxLine is refused without being held, and
// the next line is answered.
func TestHugeLine(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + strings.Repeat("a", MaxLine) + `"}}}`
	got := exchange(t, New(Options{}), huge, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if len(got) != 2 || got[0]["error"].(map[string]any)["code"] != -32600.0 || got[1]["id"] != 2.0 {
		t.Fatalf("got %v", got)
	}
}

// failWriter fails every write, as a pipe whose reader is gone does,
// and counts them.
type failWriter struct{ n int }

func (w *failWriter) Write([]byte) (int, error) { w.n++; return 0, os.ErrClosed }

// TestClientGone: when an answer cannot be written, Serve stops with the
// write's error instead of answering on.
func TestClientGone(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	w := &failWriter{}
	if err := New(Options{}).Serve(context.Background(), in, w); err != os.ErrClosed {
		t.Fatalf("Serve: %v, want the write's error", err)
	}
	if w.n != 1 {
		t.Errorf("%d writes, want 1", w.n)
	}
}

// callTool calls a tool and returns its text, decoded, and isError.
func callTool(t *testing.T, s *Server, name string, args any) (map[string]any, string, bool) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	got := exchange(t, s, string(b))
	r, ok := got[0]["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: %v", name, got[0])
	}
	text := r["content"].([]any)[0].(map[string]any)["text"].(string)
	isErr := r["isError"] == true
	var m map[string]any
	if !isErr {
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("%s: %v in %s", name, err, text)
		}
	}
	return m, text, isErr
}

// hitsOf lists a search's hits as "entry onBranch".
func hitsOf(m map[string]any) []string {
	var out []string
	for _, h := range m["hits"].([]any) {
		h := h.(map[string]any)
		out = append(out, h["entryId"].(string)+map[bool]string{true: " current", false: " abandoned"}[h["onCurrentBranch"] == true])
	}
	return out
}

func TestSearch(t *testing.T) {
	s := testServer(t)
	for _, tc := range []struct {
		query string
		want  []string
		warn  bool
	}{
		{"zanzibar project:api", []string{"b1 current", "b3 current", "b2 abandoned"}, false},
		{"zanzibar branch:abandoned", []string{"b2 abandoned"}, false},
		{"zanzibar role:user after:2026-11-10", []string{"w1 current"}, false},
		{"zanzibar project:web proj:api", []string{"w1 current"}, true},
		{"zanzibar project:nowhere", nil, true},
	} {
		m, _, isErr := callTool(t, s, "search", map[string]any{"query": tc.query})
		if isErr {
			t.Fatalf("%s: error", tc.query)
		}
		if diff := cmp.Diff(tc.want, hitsOf(m)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.query, diff)
		}
		if _, warned := m["warnings"]; warned != tc.warn {
			t.Errorf("%s: warnings %v", tc.query, m["warnings"])
		}
	}
}

func TestToolErrors(t *testing.T) {
	s := testServer(t)
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"search", map[string]any{}, "query is required"},
		{"search", map[string]any{"query": 3}, "bad arguments"},
		{"search", map[string]any{"query": "a", "limit": 500}, "limit must be"},
		{"search", map[string]any{"query": strings.Repeat("a", MaxQuery+1)}, "longer than"},
		{"search", map[string]any{"query": "a", "text": "b"}, "unknown field"},
		{"list_sessions", map[string]any{"project": "nowhere"}, "no project is named"},
		{"read_context", map[string]any{}, "sessionId is required"},
		{"read_context", map[string]any{"sessionId": "019"}, "4 characters"},
		{"read_context", map[string]any{"sessionId": "0193"}, "2 sessions have ids"},
		{"read_context", map[string]any{"sessionId": "ffff"}, "no session has"},
		{"read_context", map[string]any{"sessionId": apiID, "maxChars": 10}, "maxChars must be"},
		{"read_entry", map[string]any{"sessionId": apiID}, "entryId is required"},
		{"read_entry", map[string]any{"sessionId": apiID, "entryId": "zz"}, "has no entry"},
		{"read_entry", map[string]any{"sessionId": apiID, "entryId": "b1", "offset": 1 << 20}, "offset must be"},
	} {
		_, text, isErr := callTool(t, s, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: %q (error %v), want an error with %q", tc.tool, tc.args, text, isErr, tc.want)
		}
	}
}

func TestListSessions(t *testing.T) {
	s := testServer(t)
	m, _, _ := callTool(t, s, "list_sessions", map[string]any{"limit": 1})
	if m["total"] != 2.0 || m["next"] != 1.0 || m["sessions"].([]any)[0].(map[string]any)["sessionId"] != webID {
		t.Errorf("all, first page: %v", m)
	}
	m, _, _ = callTool(t, s, "list_sessions", map[string]any{"project": "/tmp/api"})
	got := m["sessions"].([]any)
	if m["total"] != 1.0 || m["next"] != nil || got[0].(map[string]any)["sessionId"] != apiID || got[0].(map[string]any)["messages"] != 3.0 ||
		got[0].(map[string]any)["modified"] != "2026-11-02T10:00:03Z" {
		t.Errorf("project api: %v", m)
	}
}

func TestReadContext(t *testing.T) {
	s := testServer(t)
	m, _, _ := callTool(t, s, "read_context", map[string]any{"sessionId": "0193aaaa"})
	var ids []string
	for _, msg := range m["messages"].([]any) {
		ids = append(ids, msg.(map[string]any)["entryId"].(string))
	}
	if diff := cmp.Diff([]string{"b1", "b3"}, ids); diff != "" || m["total"] != 2.0 || m["next"] != nil {
		t.Errorf("context (-want +got):\n%s%v", diff, m)
	}
	m, _, _ = callTool(t, s, "read_context", map[string]any{"sessionId": apiID, "start": -1})
	if msgs := m["messages"].([]any); len(msgs) != 1 || msgs[0].(map[string]any)["index"] != 1.0 {
		t.Errorf("start -1: %v", m)
	}
	m, _, _ = callTool(t, s, "read_context", map[string]any{"sessionId": webID, "maxChars": 1000})
	msg := m["messages"].([]any)[0].(map[string]any)
	if msg["truncated"] != true || len(msg["head"].(string)) != 1000 || msg["bytes"].(float64) < 10000 {
		t.Errorf("a message over the page: %v", msg)
	}
}

func TestReadEntry(t *testing.T) {
	s := testServer(t)
	m, _, _ := callTool(t, s, "read_entry", map[string]any{"sessionId": apiID, "entryId": "b2"})
	if e, _ := m["entry"].(map[string]any); e["id"] != "b2" || m["line"] != 3.0 {
		t.Errorf("abandoned entry: %v", m)
	}
	var text string
	for off := 0.0; ; {
		m, _, _ = callTool(t, s, "read_entry", map[string]any{"sessionId": webID, "entryId": "w1", "offset": off, "maxChars": 4000})
		text += m["text"].(string)
		next, ok := m["next"].(float64)
		if !ok {
			break
		}
		off = next
	}
	if text != webLines[1] {
		t.Errorf("the pages of a long entry make %d bytes, want its %d", len(text), len(webLines[1]))
	}
}

// TestServeStopsWithContext: Serve returns when its context ends while
// the client says nothing (stdin held open).
func TestServeStopsWithContext(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := New(Options{}).Serve(ctx, r, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// TestIndexBehind: a tool whose index update outlasts FreshWait answers
// from the index as it is, and says so in a second text block.
func TestIndexBehind(t *testing.T) {
	s := testServer(t)
	callTool(t, s, "list_sessions", nil) // indexed once
	s.o.Fresh = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	s.o.FreshWait = time.Millisecond
	got := exchange(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sessions"}}`)
	content := got[0]["result"].(map[string]any)["content"].([]any)
	if len(content) != 2 || !strings.Contains(content[0].(map[string]any)["text"].(string), apiID) ||
		content[1].(map[string]any)["text"] != behindNote {
		t.Errorf("answer: %v", content)
	}
}
