package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/fakellm"
	"piweb/internal/piconfig"
	"piweb/internal/testkit"
)

// TestConfigAPI: settings and keys through the API land in pi's files,
// keys come back masked, and a corrupt settings.json is refused (409
// corrupt) until the client asks to replace it.
func TestConfigAPI(t *testing.T) {
	r := newRig(t, Options{})
	settings := filepath.Join(r.d.AgentDir, "settings.json")
	api, ctx := r.api(), t.Context()
	change := func(key, sub, value string) apitype.SettingsChange {
		return apitype.SettingsChange{Changes: []piconfig.Change{{Key: key, Sub: sub, Value: json.RawMessage(value)}}}
	}
	testkit.WriteFile(t, settings, `{"theme":"dark"}`)
	if _, err := api.PutSettings(ctx, change("compaction", "enabled", "false")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(settings); string(b) != "{\n  \"theme\": \"dark\",\n  \"compaction\": {\n    \"enabled\": false\n  }\n}" {
		t.Errorf("settings.json = %s", b)
	}
	_, err := api.PutSettings(ctx, change("steeringMode", "", `"sometimes"`))
	wantErr(t, "a bad value", err, 400, "")
	got, err := api.PutKey(ctx, "openai", apitype.KeyChange{Key: "sk-secret-1234567890"})
	if s := toJSON(t, got); err != nil || strings.Contains(s, "secret") || !strings.Contains(s, "7890") {
		t.Errorf("auth answer = %s, %v", s, err)
	}
	cfg, err := api.Config(ctx, "")
	if s := toJSON(t, cfg); err != nil || strings.Contains(s, "secret") || !strings.Contains(s, `"compaction"`) {
		t.Errorf("config = %s, %v", s, err)
	}
	_, err = api.PutKey(ctx, "openai", apitype.KeyChange{Key: "a\nb"})
	wantErr(t, "a key of two lines", err, 400, "")
	if _, err := api.DeleteKey(ctx, "openai"); err != nil {
		t.Error(err)
	}
	_, err = api.DeleteKey(ctx, "openai")
	wantErr(t, "deleting it again", err, 404, "")

	testkit.WriteFile(t, settings, `{"theme":`)
	ch := change("steeringMode", "", `"all"`)
	_, err = api.PutSettings(ctx, ch)
	wantErr(t, "corrupt", err, 409, "corrupt")
	ch.ReplaceCorrupt = true
	if _, err := api.PutSettings(ctx, ch); err != nil {
		t.Error(err)
	}
	if m, _ := filepath.Glob(settings + ".corrupt-*"); len(m) != 1 {
		t.Errorf("corrupt copies: %v", m)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLiveModelTest: "test" sends one tiny request through real pi and
// reports the answer, pi's error, or a provider that does not answer in
// time (its pi stopped).
func TestLiveModelTest(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRig(t)
	r.srv.opts.ModelTestTimeout = 3 * time.Second
	api, ctx := r.api(), t.Context()
	body := apitype.ModelTestRequest{Provider: fakellm.Provider, ModelID: fakellm.ModelID}
	llm.Enqueue(fakellm.Text("OK"))
	if got, err := api.TestModel(ctx, body); err != nil || !got.OK || got.Reply != "OK" {
		t.Errorf("answer: %+v, %v", got, err)
	}
	llm.Enqueue(fakellm.Reply{Status: 401, ErrorMessage: "invalid api key"})
	if got, err := api.TestModel(ctx, body); err != nil || got.OK || !strings.Contains(got.Error, "invalid api key") {
		t.Errorf("refusal: %+v, %v", got, err)
	}
	hold := make(chan struct{})
	defer close(hold)
	llm.Enqueue(fakellm.Reply{Text: "never", Hold: hold})
	if got, err := api.TestModel(ctx, body); err != nil || got.OK || !strings.Contains(got.Error, "no answer within 3s") {
		t.Errorf("hang: %+v, %v", got, err)
	}
	_, err := api.TestModel(ctx, apitype.ModelTestRequest{Provider: "fake"})
	wantErr(t, "no model", err, 400, "")
}

// TestLiveResources: a skill and a prompt template in a trusted project's
// .pi and a prompt in the agent dir are listed with where they come from;
// so are an extension that adds no command and MCP servers, a project's
// only once pi trusts the project.
func TestLiveResources(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, _ := liveRig(t)
	cwd := r.d.Projects + "/notes"
	testkit.WriteFile(t, filepath.Join(cwd, ".pi", "prompts", "proj-prompt.md"), "---\ndescription: a project prompt\n---\nDo it.\n")
	testkit.WriteFile(t, filepath.Join(r.d.AgentDir, "prompts", "user-prompt.md"), "---\ndescription: a user prompt\n---\nDo it.\n")
	testkit.WriteFile(t, filepath.Join(r.d.AgentDir, "extensions", "quiet.ts"), "export default function (pi) {}\n")
	testkit.WriteFile(t, filepath.Join(cwd, ".pi", "mcp.json"), `{"mcpServers":{"proj-db":{"command":"piweb-no-such-db"}}}`)
	api, ctx := r.api(), t.Context()
	resources := func() string {
		t.Helper()
		list, err := api.Resources(ctx, cwd)
		if err != nil {
			t.Fatal(err)
		}
		return toJSON(t, list)
	}
	before := resources()
	if strings.Contains(before, "proj-db") || !strings.Contains(before, `"name":"quiet"`) {
		t.Errorf("untrusted project: %s", before)
	}
	if _, err := api.SetTrust(ctx, apitype.TrustRequest{Cwd: cwd}); err != nil {
		t.Fatal(err)
	}
	got := resources()
	for _, want := range []string{`"name":"proj-prompt"`, `"scope":"project"`, `"name":"user-prompt"`, `"scope":"user"`, `"kind":"prompt"`,
		`"name":"proj-db"`, `"kind":"mcp"`, `"name":"quiet"`} {
		if !strings.Contains(got, want) {
			t.Errorf("resources lack %s: %s", want, got)
		}
	}
	_, err := api.Resources(ctx, "relative")
	wantErr(t, "a relative cwd", err, 400, "")
}

// TestAddPiwebMCP: POST /api/config/mcp/piweb writes this piweb's entry
// into the agent dir's mcp.json (keeping the servers there) and answers
// the servers after; a piweb that does not know its executable refuses.
func TestAddPiwebMCP(t *testing.T) {
	r := newRig(t, Options{Executable: "/opt/piweb"})
	path := filepath.Join(r.d.AgentDir, "mcp.json")
	testkit.WriteFile(t, path, `{"mcpServers":{"files":{"command":"x"}}}`)
	cwd := r.d.Projects + "/notes"
	got, err := r.api().AddPiwebMCP(t.Context(), apitype.AddPiwebMCP{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if s := toJSON(t, got); !strings.Contains(s, `"name":"piweb"`) || !strings.Contains(s, `"detail":"/opt/piweb mcp"`) || !strings.Contains(s, `"name":"files"`) {
		t.Errorf("installed after: %s", s)
	}
	b, _ := os.ReadFile(path)
	if want := "{\n  \"mcpServers\": {\n    \"files\": {\n      \"command\": \"x\"\n    },\n    \"piweb\": {\n      \"command\": \"/opt/piweb\",\n      \"args\": [\n        \"mcp\"\n      ],\n      \"exposure\": \"direct\"\n    }\n  }\n}\n"; string(b) != want {
		t.Errorf("mcp.json:\n%s\nwant\n%s", b, want)
	}
	_, err = newRig(t, Options{}).api().AddPiwebMCP(t.Context(), apitype.AddPiwebMCP{Cwd: cwd})
	wantErr(t, "no executable", err, 404, "")
}
