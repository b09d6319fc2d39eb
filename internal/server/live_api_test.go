package server

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/fakellm"
	"piweb/internal/piconfig"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// waitFor reads events until one satisfies ok and returns it.
func waitFor(t *testing.T, ch <-chan sseEvent, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	return testkit.Await(t, ch, 30*time.Second, what, func(ev sseEvent) bool { return ok(ev.data) }).data
}

func isType(typ string) func(map[string]any) bool {
	return func(d map[string]any) bool { return d["type"] == typ }
}

// TestLiveAgentAPI: POST /api/sessions answers exactly {"id"}; while pi
// streams, the session reads as running (in its item and on /api/events)
// and a plain prompt is 409 busy; afterwards the index stream announces
// the file; deleting the session stops its live worker first.
func TestLiveAgentAPI(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	api := r.api()
	index := listen(t)(api.IndexEvents(ctx, ""))
	waitFor(t, index, "hello", isType("hello"))
	hold := make(chan struct{})
	llm.Enqueue(fakellm.Text("A held answer in four parts.").WithChunks(4).WithHold(hold, 1))
	b, _, err := api.Raw(ctx, "POST", "/api/sessions", agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "hold on"})
	var out apitype.Created
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err != nil || dec.Decode(&out) != nil || out.ID == "" {
		t.Fatalf("create answered %s, %v, want only an id", b, err)
	}
	id := out.ID
	events := listen(t)(api.SessionEvents(ctx, id, "0"))
	waitFor(t, events, "message_update", isType("message_update"))
	waitFor(t, index, "running true", func(d map[string]any) bool {
		return d["type"] == "running" && d["id"] == id && d["running"] == true
	})
	if d, err := api.Session(ctx, id); err != nil || !d.Session.Running {
		t.Errorf("item while streaming: %+v, %v", d.Session, err)
	}
	_, err = api.Command(ctx, id, map[string]any{"type": "prompt", "message": "now"})
	wantErr(t, "prompt while streaming", err, 409, "busy")
	close(hold)
	waitFor(t, events, "agent_end", isType("agent_end"))
	waitFor(t, index, "session_added", func(d map[string]any) bool {
		s, _ := d["session"].(map[string]any)
		return (d["type"] == "session_added" || d["type"] == "session_updated") && s["id"] == id
	})
	d := r.detail(id)
	path := d.Session.Path

	sup := r.srv.agent.(*agent.Service).Supervisor()
	if sup.Live(path) == nil {
		t.Fatal("no live worker before the delete")
	}
	if _, err := api.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
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
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	ext := pitest.Extension(t, "ask")
	r, _ := liveRigWith(t, fakellm.Options{}, func(c *agent.Config) {
		c.Base.Extensions = append(c.Base.Extensions, ext)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	api := r.api()
	id := create(t, api, agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "hello"})
	events := listen(t)(api.SessionEvents(ctx, id, "0"))
	waitFor(t, events, "agent_end", isType("agent_end"))
	asked := make(chan error, 1)
	go func() {
		_, err := api.Command(ctx, id, map[string]any{"type": "prompt", "message": "/ask"})
		asked <- err
	}()
	command := func(cmd map[string]any) error {
		_, err := api.Command(ctx, id, cmd)
		return err
	}
	dialog := func(method string) string {
		d := waitFor(t, events, method+" dialog", func(d map[string]any) bool {
			return d["type"] == "extension_ui_request" && d["method"] == method
		})
		return d["id"].(string)
	}
	confirm := dialog("confirm")
	if err := command(map[string]any{"type": "ui_response", "requestId": confirm, "confirmed": true}); err != nil {
		t.Fatal(err)
	}
	err := command(map[string]any{"type": "ui_response", "requestId": confirm, "confirmed": false})
	wantErr(t, "second answer", err, 404, "not_found")
	if err := command(map[string]any{"type": "ui_response", "requestId": dialog("select"), "value": "blue"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, events, "the extension's report", func(d map[string]any) bool {
		return d["type"] == "extension_ui_request" && d["method"] == "notify" && d["message"] == "ok=true pick=blue"
	})
	if err := <-asked; err != nil {
		t.Errorf("the /ask prompt: %v", err)
	}
}

// TestLiveModels: GET /api/models lists what real pi offers, which
// includes the models models.json declares, and a model added through PUT
// /api/models-config is listed at once.
func TestLiveModels(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, _ := liveRig(t)
	api, ctx := r.api(), t.Context()
	models := func() piconfig.ModelList {
		t.Helper()
		list, err := api.Models(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	ids := func() []string {
		var out []string
		for _, m := range models().Models {
			var mm struct{ Provider, ID string }
			json.Unmarshal(m, &mm)
			out = append(out, mm.Provider+"/"+mm.ID)
		}
		return out
	}
	if d := models().Default; d == nil || d.Provider != fakellm.Provider || d.ModelID != fakellm.ModelID {
		t.Errorf("default %v", d)
	}
	if have := ids(); !slices.Contains(have, "fake/fake-model") || !slices.Contains(have, "fake/"+fakellm.ThinkerID) {
		t.Fatalf("pi's models %v lack models.json's", have)
	}
	file, err := api.ModelsConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(file.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	fake := cfg["providers"].(map[string]any)[fakellm.Provider].(map[string]any)
	fake["models"] = append(fake["models"].([]any), map[string]any{"id": "fake-extra", "name": "Extra"})
	raw, _ := json.Marshal(cfg)
	if _, err := api.PutModelsConfig(ctx, apitype.ModelsConfig{Config: raw}); err != nil {
		t.Fatal(err)
	}
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
	api := client.New("http://"+ln.Addr().String(), client.Options{})
	hold := make(chan struct{})
	defer close(hold)
	lv.llm.Enqueue(fakellm.Text("Never finished.").WithChunks(4).WithHold(hold, 1))
	id := create(t, api, agent.CreateRequest{Cwd: lv.d.Projects + "/notes", Message: "hold on"})
	sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	events := listen(t)(api.SessionEvents(sctx, id, "0"))
	index := listen(t)(api.IndexEvents(sctx, ""))
	waitFor(t, events, "message_update", isType("message_update"))
	if kids := childProcesses(t); len(kids) == 0 {
		t.Fatal("no pi process while streaming")
	}

	stop()
	if err := testkit.Recv(t, served, 30*time.Second, "Serve's return"); err != nil {
		t.Errorf("Serve: %v", err)
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

// create starts a session through api and returns its id.
func create(t testing.TB, api *client.Client, req agent.CreateRequest) string {
	t.Helper()
	out, err := api.Create(t.Context(), req)
	if err != nil || out.ID == "" {
		t.Fatalf("create %+v: %+v, %v", req, out, err)
	}
	return out.ID
}

// childProcesses lists the live (not zombie) processes whose parent is
// this test process, as "pid comm", from /proc.
func childProcesses(t *testing.T) []string { return pitest.ChildProcesses(t, os.Getpid()) }

// TestLiveModelsOnePi: requests for the models that arrive together start
// one pi between them (counted by a script that logs each start of the
// real pi and runs it). A list no longer fresh (ModelsFresh, 1 ns here)
// is still the answer, and one pi refreshes it behind, for requests that
// arrive together again.
func TestLiveModelsOnePi(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	starts := filepath.Join(t.TempDir(), "starts")
	r, _ := liveRigWith(t, fakellm.Options{}, func(c *agent.Config) {
		wrapper := filepath.Join(t.TempDir(), "pi")
		script := "#!/bin/sh\necho \"$*\" >> " + starts + "\nexec " + c.Base.Pi.Path + " \"$@\"\n"
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		c.Base.Pi = &agent.Pi{Path: wrapper, Version: c.Base.Pi.Version}
		c.ModelsFresh = time.Nanosecond
	})
	const n = 4
	lists := make(chan string, n)
	ask := func() {
		for range n {
			go func() {
				list, err := r.api().Models(t.Context())
				if err != nil {
					t.Error(err)
				}
				lists <- jsonOf(list.Models)
			}()
		}
	}
	started := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "--mode rpc")
	}
	ask()
	first := <-lists
	for range n - 1 {
		if l := <-lists; l != first {
			t.Errorf("requests together answered %s and %s", first, l)
		}
	}
	if got := started(); got != 1 {
		t.Errorf("%d pi started for %d requests", got, n)
	}
	ask()
	for range n {
		if l := <-lists; l != first {
			t.Errorf("the kept list answered %s, want %s", l, first)
		}
	}
	testkit.Eventually(t, func() bool { return started() == 2 }, 30*time.Second, "one pi refreshing the list behind")
}

// TestLiveCreateOptions: the model, thinking level and tools given to POST
// /api/sessions reach pi for that session (as the fake LLM sees its
// request), and the user's settings.json stays as it was.
func TestLiveCreateOptions(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRig(t)
	settings := filepath.Join(r.d.AgentDir, "settings.json")
	before, _ := os.ReadFile(settings)
	tests := []struct {
		name   string
		body   agent.CreateRequest
		model  string
		effort string
		tools  []string
	}{
		{"thinker, high, read-only", agent.CreateRequest{Model: "fake/" + fakellm.ThinkerID, ThinkingLevel: "high", Tools: json.RawMessage(`"read-only"`)},
			fakellm.ThinkerID, "high", []string{"find", "grep", "ls", "read"}},
		{"default model, a tool list", agent.CreateRequest{Tools: json.RawMessage(`["bash"]`)}, fakellm.ModelID, "", []string{"bash"}},
		{"no tools", agent.CreateRequest{Tools: json.RawMessage(`"none"`)}, fakellm.ModelID, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			tt.body.Cwd, tt.body.Message = r.d.Projects+"/notes", "options"
			api := r.api()
			id := create(t, api, tt.body)
			events := listen(t)(api.SessionEvents(ctx, id, "0"))
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
