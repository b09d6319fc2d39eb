package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/fakellm/fakellmtest"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestMCPWithPi: pi 1.6.0, whose mcp.json starts piweb mcp (this test
// binary as piweb), declares piweb's tools to the model; when the model
// calls the search, the hit from another session of the agent dir
// reaches the model's next request, and so does that session's context
// when the model reads it by the start of its id.
func TestMCPWithPi(t *testing.T) {
	testkit.Long(t)
	piBin := pitest.PiBin(t)
	agent := t.TempDir()
	srv, _ := fakellmtest.Serve(t, agent, fakellm.Options{Log: testkit.Log(t)})
	const id = "01c00000-0000-7000-8000-00000000beef"
	dir := filepath.Join(agent, "sessions", pisession.EncodeCwd("/srv/api"))
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "2026-12-01T10-00-00-000Z_"+id+".jsonl"), []byte(
		`{"type":"session","version":3,"id":"`+id+`","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/srv/api"}`+"\n"+
			`{"type":"message","id":"e1","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"the zanzibar flake: pin the clock","timestamp":1764583201000}}`+"\n"), 0o644)
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"piweb": map[string]any{
		"command": os.Args[0], "args": []string{"mcp"}, "env": map[string]string{asPiweb: "1"}, "exposure": "direct"}}})
	if err := os.WriteFile(filepath.Join(agent, "mcp.json"), mcpJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakellm.Tools(fakellm.NewCall("mcp__piweb__search", map[string]any{"query": "zanzibar project:api"})),
		fakellm.Tools(fakellm.NewCall("mcp__piweb__read_context", map[string]any{"sessionId": id[:8], "start": -1})),
		fakellm.Text("Pin the clock."))
	cmd := exec.Command(piBin, "--mode", "rpc", "--no-session", "--no-context-files")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1", "XDG_CACHE_HOME="+t.TempDir())
	p := pitest.StartRPC(t, cmd)
	p.Call(map[string]any{"type": "prompt", "message": "how did we fix the zanzibar flake?"}, 30*time.Second)
	p.Until(60*time.Second, func(ev map[string]any) bool { return ev["type"] == "agent_end" })
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3; stderr:\n%s", len(reqs), p.Stderr())
	}
	if names := reqs[0].ToolNames(); !slices.Contains(names, "mcp__piweb__search") || !slices.Contains(names, "mcp__piweb__read_context") {
		t.Errorf("tools declared to the model: %v", names)
	}
	results := reqs[1].ToolResults()
	if len(results) != 1 || !strings.Contains(results[0].Text(), `"sessionId":"`+id+`"`) || !strings.Contains(results[0].Text(), "**zanzibar**") {
		t.Errorf("the search's result in the model's request: %v", results)
	}
	if results = reqs[2].ToolResults(); len(results) != 1 || !strings.Contains(results[0].Text(), `"entryId":"e1"`) ||
		!strings.Contains(results[0].Text(), "the zanzibar flake: pin the clock") {
		t.Errorf("read_context's result in the model's request: %v", results)
	}
}

// TestMCPClientGone: piweb mcp whose client closed its end of stdout
// before the answer exits 0 (the write fails; no SIGPIPE death).
func TestMCPClientGone(t *testing.T) {
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = append(os.Environ(), asPiweb+"=1", "PI_CODING_AGENT_DIR="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr testkit.Output
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sessions"}}` + "\n"))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("piweb mcp: %v; stderr: %s", err, stderr.String())
	}
}

// TestMCPSignal: piweb mcp sent SIGTERM while its client holds stdin
// open and says nothing exits 0 at once (pi stops a server so when
// closing stdin did not).
func TestMCPSignal(t *testing.T) {
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = append(os.Environ(), asPiweb+"=1", "PI_CODING_AGENT_DIR="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"result":{}`) {
		t.Fatalf("ping: %q, %v", line, err)
	}
	pitest.Terminate(t, cmd, "piweb mcp", 10*time.Second)
}
