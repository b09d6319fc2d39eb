package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/demo"
	"piweb/internal/fakellm"
	"piweb/internal/pitest"
)

// TestContextMatchesPi: for every demo session, the context the API
// serves is what real pi's buildSessionContext returns, message for
// message, and pi lists the same sessions.
func TestContextMatchesPi(t *testing.T) {
	r := newRig(t, Options{})
	var listed []map[string]any
	pitest.OracleJSON(t, &listed, "listall", r.d.AgentDir)
	if len(listed) != len(r.d.Sessions) {
		t.Fatalf("pi lists %d sessions, want %d", len(listed), len(r.d.Sessions))
	}
	for _, s := range r.sessions() {
		var want struct {
			Messages []json.RawMessage `json:"messages"`
		}
		pitest.OracleJSON(t, &want, "context", s["path"].(string))
		resp := r.do("GET", "/api/sessions/"+s["id"].(string)+"/context", nil)
		var got struct {
			Messages []json.RawMessage `json:"messages"`
		}
		json.NewDecoder(resp.Body).Decode(&got)
		wantB, _ := json.Marshal(want.Messages)
		gotB, _ := json.Marshal(got.Messages)
		pitest.CompareJSON(t, wantB, gotB)
	}
}

// liveRig is a server over the demo sessions with real pi talking to the
// fake LLM.
func liveRig(t *testing.T) (*rig, *fakellm.Server) {
	t.Helper()
	return liveRigLLM(t, fakellm.Options{})
}

// liveRigLLM is liveRig with a fake LLM configured by o.
func liveRigLLM(t *testing.T, o fakellm.Options) (*rig, *fakellm.Server) {
	t.Helper()
	return liveRigWith(t, o, nil)
}

// liveRigWith is liveRigLLM with the agent's configuration edited by edit
// (nil for none).
func liveRigWith(t *testing.T, o fakellm.Options, edit func(*agent.Config)) (*rig, *fakellm.Server) {
	t.Helper()
	return liveRigOpts(t, o, edit, app.Config{})
}

// liveRigOpts is liveRigWith with the parts of cfg (their agent dir,
// catalog and agent are the rig's).
func liveRigOpts(t *testing.T, o fakellm.Options, edit func(*agent.Config), cfg app.Config) (*rig, *fakellm.Server) {
	t.Helper()
	lv := newLiveOpts(t, o, edit, cfg)
	hs := httptest.NewServer(lv.srv)
	t.Cleanup(func() {
		hs.Close()
		lv.close(t)
	})
	return &rig{t: t, srv: lv.srv, ts: hs, cat: lv.cat, d: lv.d}, lv.llm
}

// liveServer is a Server over the demo sessions with real pi talking to the
// fake LLM, not yet serving.
type liveServer struct {
	srv *Server
	ag  *agent.Service
	cat *catalog.Catalog
	d   *demo.Demo
	llm *fakellm.Server
}

func newLive(t *testing.T, o fakellm.Options, edit func(*agent.Config)) *liveServer {
	t.Helper()
	return newLiveOpts(t, o, edit, app.Config{})
}

// newLiveOpts is newLive with the parts of cfg.
func newLiveOpts(t *testing.T, o fakellm.Options, edit func(*agent.Config), parts app.Config) *liveServer {
	t.Helper()
	piBin := pitest.PiBin(t)
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	llm := fakellm.New(o)
	ts := httptest.NewServer(llm)
	t.Cleanup(ts.Close)
	if err := fakellm.SetupAgentDir(d.AgentDir, ts.URL+"/v1"); err != nil {
		t.Fatal(err)
	}
	if err := fakellm.KeepRecent(d.AgentDir, 1); err != nil { // a short session has something to compact
		t.Fatal(err)
	}
	pi, err := agent.Find(context.Background(), piBin)
	if err != nil {
		t.Fatal(err)
	}
	// As serve: no poll of the session files, the server hands the
	// workers the index's reads of new lines.
	cfg := agent.Config{Base: agent.Options{Pi: pi, AgentDir: d.AgentDir}, BridgeDir: filepath.Join(t.TempDir(), "bridge"),
		OutsidePoll: -1}
	if edit != nil {
		edit(&cfg)
	}
	ag, err := agent.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cat := openCatalog(t, d.AgentDir)
	parts.AgentDir, parts.Catalog, parts.Agent = d.AgentDir, cat, ag
	srv := New(Options{Addr: "127.0.0.1:30141"}, app.New(parts))
	return &liveServer{srv: srv, ag: ag, cat: cat, d: d, llm: llm}
}

// close closes the server and checks that no worker outlived it.
func (lv *liveServer) close(t *testing.T) {
	lv.srv.Close()
	if err := lv.srv.app.Close(); err != nil {
		t.Error(err)
	}
	if n := lv.ag.Supervisor().LiveCount(); n != 0 {
		t.Errorf("%d workers still live after Close", n)
	}
	lv.cat.Close()
}

// TestLiveChat: a new session through the API, its events over SSE until
// agent_end, a follow-up command on it, and a clean shutdown.
func TestLiveChat(t *testing.T) {
	r, llm := liveRig(t)
	cwd := r.d.Projects + "/notes"
	llm.Enqueue(fakellm.Tools(fakellm.Bash("echo hello-from-pi")), fakellm.Text("All done."))
	out := r.json("POST", "/api/sessions", map[string]any{"cwd": cwd, "message": "say hello"}, 200)
	id := out["id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ch, _ := sseClient(ctx, t, r.ts.URL+"/api/sessions/"+id+"/events?lastEventId=0", "")
	seen := map[string]bool{}
	for !seen["agent_end"] {
		ev := next(t, ch)
		seen[ev.data["type"].(string)] = true
	}
	for _, typ := range []string{"tool_execution_end", "message_update", "message_end"} {
		if !seen[typ] && !seen["reset"] {
			t.Errorf("no %s event (saw %v)", typ, seen)
		}
	}
	// The file pi wrote is listed and readable.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, found := r.cat.ByKey(id); found {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	c := r.json("GET", "/api/sessions/"+id+"/context", nil, 200)
	var roles []string
	for _, m := range c["messages"].([]any) {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if want := []string{"system", "user", "assistant", "toolResult", "assistant"}; !slices.Equal(roles, want) {
		t.Errorf("context roles %v, want %v", roles, want) // pi 1.x writes its system prompt first
	}
	if c["system"] != 1.0 {
		t.Errorf("context answer says %v system messages, want 1", c["system"])
	}
	st := r.json("POST", "/api/sessions/"+id+"/commands", map[string]string{"type": "get_state"}, 200)
	if st["data"].(map[string]any)["sessionId"] != id {
		t.Errorf("get_state %v", st)
	}
	llm.Enqueue(fakellm.Text("Second answer."))
	leaf := r.json("GET", "/api/sessions/"+id, nil, 200)["leaf"].(string)
	r.json("POST", "/api/sessions/"+id+"/commands", map[string]any{"type": "prompt", "message": "again", "expectLeaf": leaf}, 200)
	for {
		if ev := next(t, ch); ev.data["type"] == "agent_end" {
			break
		}
	}
	// "Edit from here": navigate in place to the first user message.
	var first string
	for _, n := range r.json("GET", "/api/sessions/"+id, nil, 200)["tree"].([]any) {
		if m := n.(map[string]any); m["role"] == "user" && first == "" {
			first = m["id"].(string)
		}
	}
	nav := r.json("POST", "/api/sessions/"+id+"/commands", map[string]any{"type": "navigate", "entryId": first}, 200)
	if d := nav["data"].(map[string]any); d["editorText"] != "say hello" {
		t.Errorf("navigate answer %v", d)
	}
}

// TestLiveAbortCompactionAPI: abort_compaction ends a running manual
// compaction (its summary held by the fake LLM) without writing it; the
// compact command fails, the file is unchanged, and the session goes on.
func TestLiveAbortCompactionAPI(t *testing.T) {
	r, llm := liveRigLLM(t, fakellm.Options{ScriptSummaries: true})
	llm.Enqueue(fakellm.Text("One."), fakellm.Text("Two."))
	id := r.json("POST", "/api/sessions", map[string]any{"cwd": r.d.Projects + "/notes", "message": "first"}, 200)["id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ch, _ := sseClient(ctx, t, r.ts.URL+"/api/sessions/"+id+"/events?lastEventId=0", "")
	waitEvent(t, ch, "agent_end")
	cmd := "/api/sessions/" + id + "/commands"
	r.json("POST", cmd, map[string]any{"type": "prompt", "message": "second"}, 200)
	waitEvent(t, ch, "agent_end")
	path := r.json("GET", "/api/sessions/"+id, nil, 200)["session"].(map[string]any)["path"].(string)
	before, _ := os.ReadFile(path)

	hold := make(chan struct{})
	defer close(hold)
	llm.Enqueue(fakellm.Text(fakellm.DefaultSummary).WithHold(hold, 1))
	compacted := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", r.ts.URL+cmd, strings.NewReader(`{"type":"compact"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			compacted <- 0
			return
		}
		resp.Body.Close()
		compacted <- resp.StatusCode
	}()
	waitEvent(t, ch, "compaction_start")
	out := r.json("POST", cmd, map[string]any{"type": "abort_compaction"}, 200)
	if d, _ := out["data"].(map[string]any); d["running"] != true || d["aborted"] != true || d["stopped"] != false {
		t.Errorf("abort_compaction answered %v", out)
	}
	if status := <-compacted; status != 400 {
		t.Errorf("the aborted compact command: status %d, want 400", status)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("the file changed:\n%s", after[len(before):])
	}
	llm.Enqueue(fakellm.Text("Three."))
	r.json("POST", cmd, map[string]any{"type": "prompt", "message": "third"}, 200)
	waitEvent(t, ch, "agent_end")
}

// waitEvent reads events until one of type typ.
func waitEvent(t *testing.T, ch <-chan sseEvent, typ string) {
	t.Helper()
	for {
		if ev := next(t, ch); ev.data["type"] == typ {
			return
		}
	}
}
