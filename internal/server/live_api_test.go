package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/fakellm"
	"piweb/internal/pitest"
)

// waitFor reads events until one satisfies ok and returns it.
func waitFor(t *testing.T, ch <-chan sseEvent, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, open := <-ch:
			if !open {
				t.Fatalf("stream ended before %s", what)
			}
			if ok(ev.data) {
				return ev.data
			}
		case <-deadline:
			t.Fatalf("no %s within 30 s", what)
		}
	}
}

func isType(typ string) func(map[string]any) bool {
	return func(d map[string]any) bool { return d["type"] == typ }
}

// TestLiveAgentAPI: POST /api/sessions answers exactly {"id"}; while pi
// streams, the session reads as running (in its item and on /api/events)
// and a plain prompt is 409 busy; afterwards the index stream announces
// the file; deleting the session stops its live worker first.
func TestLiveAgentAPI(t *testing.T) {
	r, llm := liveRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	index, _ := sseClient(ctx, t, r.ts.URL+"/api/events", "")
	waitFor(t, index, "hello", isType("hello"))
	hold := make(chan struct{})
	llm.Enqueue(fakellm.Text("A held answer in four parts.").WithChunks(4).WithHold(hold, 1))
	out := r.json("POST", "/api/sessions", map[string]any{"cwd": r.d.Projects + "/notes", "message": "hold on"}, 200)
	id, _ := out["id"].(string)
	if len(out) != 1 || id == "" {
		t.Fatalf("create answered %v, want only an id", out)
	}
	events, _ := sseClient(ctx, t, r.ts.URL+"/api/sessions/"+id+"/events?lastEventId=0", "")
	waitFor(t, events, "message_update", isType("message_update"))
	waitFor(t, index, "running true", func(d map[string]any) bool {
		return d["type"] == "running" && d["id"] == id && d["running"] == true
	})
	if it := r.json("GET", "/api/sessions/"+id, nil, 200)["session"].(map[string]any); it["running"] != true {
		t.Errorf("item while streaming: %v", it)
	}
	busy := r.json("POST", "/api/sessions/"+id+"/commands", map[string]any{"type": "prompt", "message": "now"}, 409)
	if code := errCode(t, busy); code != "busy" {
		t.Errorf("prompt while streaming: %s", code)
	}
	close(hold)
	waitFor(t, events, "agent_end", isType("agent_end"))
	waitFor(t, index, "session_added", func(d map[string]any) bool {
		s, _ := d["session"].(map[string]any)
		return (d["type"] == "session_added" || d["type"] == "session_updated") && s["id"] == id
	})
	path := r.json("GET", "/api/sessions/"+id, nil, 200)["session"].(map[string]any)["path"].(string)

	sup := r.srv.agent.(*agent.Service).Supervisor()
	if sup.Live(path) == nil {
		t.Fatal("no live worker before the delete")
	}
	r.json("DELETE", "/api/sessions/"+id, map[string]any{}, 200)
	if w := sup.Live(path); w != nil {
		t.Error("the worker outlived the delete")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file still in place: %v", err)
	}
	waitFor(t, events, "session_deleted", isType("session_deleted"))
}

// TestLiveDialogAPI: an extension's dialogs reach the session's stream as
// pi's extension_ui_request and are answered with the ui_response
// command; a second answer to the same dialog is 404.
func TestLiveDialogAPI(t *testing.T) {
	ext, _ := filepath.Abs("testdata/ext/ask.ts")
	r, _ := liveRigWith(t, fakellm.Options{}, func(c *agent.Config) {
		c.Base.Extensions = append(c.Base.Extensions, ext)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	id := r.json("POST", "/api/sessions", map[string]any{"cwd": r.d.Projects + "/notes", "message": "hello"}, 200)["id"].(string)
	events, _ := sseClient(ctx, t, r.ts.URL+"/api/sessions/"+id+"/events?lastEventId=0", "")
	waitFor(t, events, "agent_end", isType("agent_end"))
	cmd := "/api/sessions/" + id + "/commands"
	asked := make(chan int, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", r.ts.URL+cmd, strings.NewReader(`{"type":"prompt","message":"/ask"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			asked <- 0
			return
		}
		resp.Body.Close()
		asked <- resp.StatusCode
	}()
	dialog := func(method string) string {
		d := waitFor(t, events, method+" dialog", func(d map[string]any) bool {
			return d["type"] == "extension_ui_request" && d["method"] == method
		})
		return d["id"].(string)
	}
	confirm := dialog("confirm")
	r.json("POST", cmd, map[string]any{"type": "ui_response", "requestId": confirm, "confirmed": true}, 200)
	again := r.json("POST", cmd, map[string]any{"type": "ui_response", "requestId": confirm, "confirmed": false}, 404)
	if code := errCode(t, again); code != "not_found" {
		t.Errorf("second answer: %s", code)
	}
	r.json("POST", cmd, map[string]any{"type": "ui_response", "requestId": dialog("select"), "value": "blue"}, 200)
	waitFor(t, events, "the extension's report", func(d map[string]any) bool {
		return d["type"] == "extension_ui_request" && d["method"] == "notify" && d["message"] == "ok=true pick=blue"
	})
	if status := <-asked; status != 200 {
		t.Errorf("the /ask prompt answered %d", status)
	}
}

// TestLiveModels: GET /api/models lists what real pi offers, which
// includes the models models.json declares, and a model added through PUT
// /api/models-config is listed at once.
func TestLiveModels(t *testing.T) {
	r, _ := liveRig(t)
	ids := func() []string {
		var out []string
		for _, m := range r.json("GET", "/api/models", nil, 200)["models"].([]any) {
			mm := m.(map[string]any)
			out = append(out, mm["provider"].(string)+"/"+mm["id"].(string))
		}
		return out
	}
	got := r.json("GET", "/api/models", nil, 200)
	if d, _ := got["default"].(map[string]any); d["provider"] != fakellm.Provider || d["modelId"] != fakellm.ModelID {
		t.Errorf("default %v", got["default"])
	}
	if have := ids(); !slices.Contains(have, "fake/fake-model") || !slices.Contains(have, "fake/"+fakellm.ThinkerID) {
		t.Fatalf("pi's models %v lack models.json's", have)
	}
	cfg := r.json("GET", "/api/models-config", nil, 200)["config"].(map[string]any)
	fake := cfg["providers"].(map[string]any)[fakellm.Provider].(map[string]any)
	fake["models"] = append(fake["models"].([]any), map[string]any{"id": "fake-extra", "name": "Extra"})
	r.json("PUT", "/api/models-config", map[string]any{"config": cfg}, 200)
	if have := ids(); !slices.Contains(have, "fake/fake-extra") {
		t.Errorf("after adding fake-extra pi lists %v", have)
	}
	var onDisk map[string]any
	b, _ := os.ReadFile(filepath.Join(r.d.AgentDir, "models.json"))
	if json.Unmarshal(b, &onDisk) != nil || !strings.Contains(string(b), fakellm.APIKey) {
		t.Errorf("models.json lost its key or its shape:\n%s", b)
	}
}

// TestServeShutdown: cancelling Serve's context mid-turn ends the SSE
// streams and returns; closing the parts then (as serve does) stops every
// worker; no pi process is left.
func TestServeShutdown(t *testing.T) {
	lv := newLive(t, fakellm.Options{}, nil)
	defer lv.cat.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- lv.srv.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	r := &rig{t: t, srv: lv.srv, ts: nil, cat: lv.cat, d: lv.d}
	hold := make(chan struct{})
	defer close(hold)
	lv.llm.Enqueue(fakellm.Text("Never finished.").WithChunks(4).WithHold(hold, 1))
	id := postJSON(t, base+"/api/sessions", `{"cwd":"`+r.d.Projects+`/notes","message":"hold on"}`)["id"].(string)
	sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	events, _ := sseClient(sctx, t, base+"/api/sessions/"+id+"/events?lastEventId=0", "")
	index, _ := sseClient(sctx, t, base+"/api/events", "")
	waitFor(t, events, "message_update", isType("message_update"))
	if kids := childProcesses(t); len(kids) == 0 {
		t.Fatal("no pi process while streaming")
	}

	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return within 30 s")
	}
	if err := lv.srv.app.Close(); err != nil {
		t.Errorf("closing the parts: %v", err)
	}
	for name, ch := range map[string]<-chan sseEvent{"session": events, "index": index} {
		for range ch { // drain until the server closed it
		}
		if sctx.Err() != nil {
			t.Errorf("the %s stream did not end", name)
		}
	}
	if n := lv.ag.Supervisor().LiveCount(); n != 0 {
		t.Errorf("%d workers live after shutdown", n)
	}
	pitest.NoChildren(t, os.Getpid(), 10*time.Second)
}

// postJSON posts body and decodes a 200 answer.
func postJSON(t *testing.T, url, body string) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST %s: status %d, %v", url, resp.StatusCode, out)
	}
	return out
}

// childProcesses lists the live (not zombie) processes whose parent is
// this test process, as "pid comm", from /proc.
func childProcesses(t *testing.T) []string { return pitest.ChildProcesses(t, os.Getpid()) }

// TestLiveModelsOnePi: requests for the models that arrive together start
// one pi between them (counted by a script that logs each start of the
// real pi and runs it).
func TestLiveModelsOnePi(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	r, _ := liveRigWith(t, fakellm.Options{}, func(c *agent.Config) {
		wrapper := filepath.Join(t.TempDir(), "pi")
		script := "#!/bin/sh\necho \"$*\" >> " + starts + "\nexec " + c.Base.Pi.Path + " \"$@\"\n"
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		c.Base.Pi = &agent.Pi{Path: wrapper, Version: c.Base.Pi.Version}
	})
	const n = 4
	done := make(chan int, n)
	for range n {
		go func() {
			resp, err := http.Get(r.ts.URL + "/api/models")
			if err != nil {
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	for range n {
		if status := <-done; status != 200 {
			t.Errorf("status %d", status)
		}
	}
	b, _ := os.ReadFile(starts)
	if got := strings.Count(string(b), "--mode rpc"); got != 1 {
		t.Errorf("%d pi started for %d requests:\n%s", got, n, b)
	}
}

// TestLiveCreateOptions: the model, thinking level and tools given to POST
// /api/sessions reach pi for that session (as the fake LLM sees its
// request), and the user's settings.json stays as it was.
func TestLiveCreateOptions(t *testing.T) {
	r, llm := liveRig(t)
	settings := filepath.Join(r.d.AgentDir, "settings.json")
	before, _ := os.ReadFile(settings)
	tests := []struct {
		name   string
		body   map[string]any
		model  string
		effort string
		tools  []string
	}{
		{"thinker, high, read-only", map[string]any{"model": "fake/" + fakellm.ThinkerID, "thinkingLevel": "high", "tools": "read-only"},
			fakellm.ThinkerID, "high", []string{"find", "grep", "ls", "read"}},
		{"default model, a tool list", map[string]any{"tools": []string{"bash"}}, fakellm.ModelID, "", []string{"bash"}},
		{"no tools", map[string]any{"tools": "none"}, fakellm.ModelID, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			tt.body["cwd"], tt.body["message"] = r.d.Projects+"/notes", "options"
			id := r.json("POST", "/api/sessions", tt.body, 200)["id"].(string)
			events, _ := sseClient(ctx, t, r.ts.URL+"/api/sessions/"+id+"/events?lastEventId=0", "")
			waitFor(t, events, "agent_end", isType("agent_end"))
			req := llm.LastRequest()
			tools := req.ToolNames()
			slices.Sort(tools)
			if req.Model != tt.model || req.ReasoningEffort != tt.effort || !slices.Equal(tools, tt.tools) {
				t.Errorf("pi asked model %q, effort %q, tools %v; want %q, %q, %v",
					req.Model, req.ReasoningEffort, tools, tt.model, tt.effort, tt.tools)
			}
		})
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Errorf("settings.json changed:\n%s", after)
	}
}
