package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"piweb/internal/fakellm"
	"strings"
	"testing"
	"time"
)

// TestConfigAPI: settings and keys through the API land in pi's files,
// keys come back masked, and a corrupt settings.json is refused (409
// corrupt) until the client asks to replace it.
func TestConfigAPI(t *testing.T) {
	r := newRig(t, Options{})
	settings := filepath.Join(r.d.AgentDir, "settings.json")
	os.WriteFile(settings, []byte(`{"theme":"dark"}`), 0o644)
	r.json("PUT", "/api/config/settings", map[string]any{"changes": []any{
		map[string]any{"key": "compaction", "sub": "enabled", "value": false}}}, 200)
	if b, _ := os.ReadFile(settings); string(b) != "{\n  \"theme\": \"dark\",\n  \"compaction\": {\n    \"enabled\": false\n  }\n}" {
		t.Errorf("settings.json = %s", b)
	}
	r.json("PUT", "/api/config/settings", map[string]any{"changes": []any{
		map[string]any{"key": "steeringMode", "value": "sometimes"}}}, 400)
	got := r.json("PUT", "/api/config/auth/openai", map[string]any{"key": "sk-secret-1234567890"}, 200)
	if s := toJSON(t, got); strings.Contains(s, "secret") || !strings.Contains(s, "7890") {
		t.Errorf("auth answer = %s", s)
	}
	if s := toJSON(t, r.json("GET", "/api/config", nil, 200)); strings.Contains(s, "secret") || !strings.Contains(s, `"compaction"`) {
		t.Errorf("config = %s", s)
	}
	r.json("PUT", "/api/config/auth/openai", map[string]any{"key": "a\nb"}, 400)
	r.json("DELETE", "/api/config/auth/openai", map[string]any{}, 200)
	r.json("DELETE", "/api/config/auth/openai", map[string]any{}, 404)

	os.WriteFile(settings, []byte(`{"theme":`), 0o644)
	ch := map[string]any{"changes": []any{map[string]any{"key": "steeringMode", "value": "all"}}}
	if code := errCode(t, r.json("PUT", "/api/config/settings", ch, 409)); code != "corrupt" {
		t.Errorf("corrupt: code %s", code)
	}
	ch["replaceCorrupt"] = true
	r.json("PUT", "/api/config/settings", ch, 200)
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
	r, llm := liveRig(t)
	r.srv.opts.ModelTestTimeout = 3 * time.Second
	body := map[string]any{"provider": fakellm.Provider, "modelId": fakellm.ModelID}
	llm.Enqueue(fakellm.Text("OK"))
	if got := r.json("POST", "/api/config/test", body, 200); got["ok"] != true || got["reply"] != "OK" {
		t.Errorf("answer: %v", got)
	}
	llm.Enqueue(fakellm.Reply{Status: 401, ErrorMessage: "invalid api key"})
	if got := r.json("POST", "/api/config/test", body, 200); got["ok"] != false || !strings.Contains(fmt.Sprint(got["error"]), "invalid api key") {
		t.Errorf("refusal: %v", got)
	}
	hold := make(chan struct{})
	defer close(hold)
	llm.Enqueue(fakellm.Reply{Text: "never", Hold: hold})
	if got := r.json("POST", "/api/config/test", body, 200); got["ok"] != false || !strings.Contains(fmt.Sprint(got["error"]), "no answer within 3s") {
		t.Errorf("hang: %v", got)
	}
	r.json("POST", "/api/config/test", map[string]any{"provider": "fake"}, 400)
}

// TestLiveResources: a skill and a prompt template in a trusted project's
// .pi and a prompt in the agent dir are listed with where they come from;
// so are an extension that adds no command and MCP servers, a project's
// only once pi trusts the project.
func TestLiveResources(t *testing.T) {
	r, _ := liveRig(t)
	cwd := r.d.Projects + "/notes"
	os.MkdirAll(filepath.Join(cwd, ".pi", "prompts"), 0o755)
	os.WriteFile(filepath.Join(cwd, ".pi", "prompts", "proj-prompt.md"), []byte("---\ndescription: a project prompt\n---\nDo it.\n"), 0o644)
	os.MkdirAll(filepath.Join(r.d.AgentDir, "prompts"), 0o755)
	os.WriteFile(filepath.Join(r.d.AgentDir, "prompts", "user-prompt.md"), []byte("---\ndescription: a user prompt\n---\nDo it.\n"), 0o644)
	os.MkdirAll(filepath.Join(r.d.AgentDir, "extensions"), 0o755)
	os.WriteFile(filepath.Join(r.d.AgentDir, "extensions", "quiet.ts"), []byte("export default function (pi) {}\n"), 0o644)
	os.WriteFile(filepath.Join(cwd, ".pi", "mcp.json"), []byte(`{"mcpServers":{"proj-db":{"command":"piweb-no-such-db"}}}`), 0o644)
	before := toJSON(t, r.json("GET", "/api/config/resources?cwd="+cwd, nil, 200))
	if strings.Contains(before, "proj-db") || !strings.Contains(before, `"name":"quiet"`) {
		t.Errorf("untrusted project: %s", before)
	}
	r.json("POST", "/api/trust", map[string]any{"cwd": cwd}, 200)
	got := toJSON(t, r.json("GET", "/api/config/resources?cwd="+cwd, nil, 200))
	for _, want := range []string{`"name":"proj-prompt"`, `"scope":"project"`, `"name":"user-prompt"`, `"scope":"user"`, `"kind":"prompt"`,
		`"name":"proj-db"`, `"kind":"mcp"`, `"name":"quiet"`} {
		if !strings.Contains(got, want) {
			t.Errorf("resources lack %s: %s", want, got)
		}
	}
	r.json("GET", "/api/config/resources?cwd=relative", nil, 400)
}
