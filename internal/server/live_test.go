package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/client"
	"piweb/internal/demo"
	"piweb/internal/fakellm"
	"piweb/internal/fakellm/fakellmtest"
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
	for _, s := range r.items() {
		var want struct {
			Messages []json.RawMessage `json:"messages"`
		}
		pitest.OracleJSON(t, &want, "context", s.Path)
		got, err := r.api().Context(t.Context(), s.ID, client.PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
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
	d := seedDemo(t)
	llm, _ := fakellmtest.Serve(t, d.AgentDir, o)
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
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRig(t)
	cwd := r.d.Projects + "/notes"
	llm.Enqueue(fakellm.Tools(fakellm.Bash("echo hello-from-pi")), fakellm.Text("All done."))
	api := r.api()
	id := create(t, api, agent.CreateRequest{Cwd: cwd, Message: "say hello"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ch := listen(t)(api.SessionEvents(ctx, id, "0"))
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
	c, err := api.Context(ctx, id, client.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range c.Messages {
		var mm struct{ Role string }
		json.Unmarshal(m, &mm)
		roles = append(roles, mm.Role)
	}
	if want := []string{"system", "user", "assistant", "toolResult", "assistant"}; !slices.Equal(roles, want) {
		t.Errorf("context roles %v, want %v", roles, want) // pi 1.x writes its system prompt first
	}
	if c.System != 1 {
		t.Errorf("context answer says %v system messages, want 1", c.System)
	}
	st := r.command(id, map[string]any{"type": "get_state"}, 200)
	var state struct{ SessionID string }
	if json.Unmarshal(st.Data, &state); state.SessionID != id {
		t.Errorf("get_state %s", st.Data)
	}
	llm.Enqueue(fakellm.Text("Second answer."))
	r.command(id, map[string]any{"type": "prompt", "message": "again", "expectLeaf": r.leaf(id)}, 200)
	for {
		if ev := next(t, ch); ev.data["type"] == "agent_end" {
			break
		}
	}
	// "Edit from here": navigate in place to the first user message.
	first := firstUser(r.detail(id))
	nav := r.command(id, map[string]any{"type": "navigate", "entryId": first}, 200)
	var navd struct{ EditorText string }
	if json.Unmarshal(nav.Data, &navd); navd.EditorText != "say hello" {
		t.Errorf("navigate answer %s", nav.Data)
	}
}

// TestLiveAbortCompactionAPI: abort_compaction ends a running manual
// compaction (its summary held by the fake LLM) without writing it; the
// compact command fails, the file is unchanged, and the session goes on.
func TestLiveAbortCompactionAPI(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRigLLM(t, fakellm.Options{ScriptSummaries: true})
	llm.Enqueue(fakellm.Text("One."), fakellm.Text("Two."))
	api := r.api()
	id := create(t, api, agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "first"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ch := listen(t)(api.SessionEvents(ctx, id, "0"))
	waitEvent(t, ch, "agent_end")
	r.command(id, map[string]any{"type": "prompt", "message": "second"}, 200)
	waitEvent(t, ch, "agent_end")
	path := r.detail(id).Session.Path
	before, _ := os.ReadFile(path)

	hold := make(chan struct{})
	defer close(hold)
	llm.Enqueue(fakellm.Text(fakellm.DefaultSummary).WithHold(hold, 1))
	compacted := make(chan error, 1)
	go func() {
		_, err := api.Command(ctx, id, map[string]any{"type": "compact"})
		compacted <- err
	}()
	waitEvent(t, ch, "compaction_start")
	out := r.command(id, map[string]any{"type": "abort_compaction"}, 200)
	var d struct{ Running, Aborted, Stopped *bool }
	json.Unmarshal(out.Data, &d)
	if d.Running == nil || !*d.Running || d.Aborted == nil || !*d.Aborted || d.Stopped == nil || *d.Stopped {
		t.Errorf("abort_compaction answered %s", out.Data)
	}
	if status := client.StatusOf(<-compacted); status != 400 {
		t.Errorf("the aborted compact command: status %d, want 400", status)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("the file changed:\n%s", after[len(before):])
	}
	llm.Enqueue(fakellm.Text("Three."))
	r.command(id, map[string]any{"type": "prompt", "message": "third"}, 200)
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
