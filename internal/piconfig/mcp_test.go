package piconfig

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/pitest"
)

// TestSetMCPEnabledAsPi switches MCP servers off and on with pi 1.6.0's
// own /mcp code (updateMcpServerConfig) in one copy and with piweb in
// another: a global server (tab-indented file, other content kept), a
// project override, and a new override of a global server made in the
// project ("Disable in this project"); the files must be byte for byte the same, and
// `pi mcp list` must call the global server disabled, then not.
func TestSetMCPEnabledAsPi(t *testing.T) {
	node, pkg := pitest.Node(t), pitest.V16.PackageDir(t)
	script := filepath.Join("testdata", "pi-mcp-enable.mjs")
	global := "{\n\t\"autoEnableCodemode\": true,\n\t\"mcpServers\": {\n\t\t\"files\": {\"command\": \"piweb-no-such-server\", \"args\": [\"-v\"]},\n\t\t\"web\": {\"url\": \"http://127.0.0.1:9/mcp\", \"enabled\": false}\n\t}\n}\n"
	project := `{"mcpServers":{"files":{"exposure":"direct"}}}`
	type rig struct{ agentDir, cwd string }
	mk := func() rig {
		root := t.TempDir()
		r := rig{filepath.Join(root, "agent"), filepath.Join(root, "proj")}
		os.MkdirAll(r.agentDir, 0o755)
		os.MkdirAll(filepath.Join(r.cwd, ".pi"), 0o755)
		os.WriteFile(filepath.Join(r.agentDir, "mcp.json"), []byte(global), 0o644)
		os.WriteFile(filepath.Join(r.cwd, ".pi", "mcp.json"), []byte(project), 0o644)
		return r
	}
	pi, web := mk(), mk()
	steps := []struct {
		project bool
		name    string
		enabled bool
		new     bool // "Disable in this project" of a global server with no override yet
	}{{false, "files", false, false}, {false, "files", true, false}, {false, "web", true, false}, {true, "files", false, false},
		{true, "files", true, false}, {true, "web", false, true}}
	for _, st := range steps {
		cwd, piPath := "", filepath.Join(pi.agentDir, "mcp.json")
		if st.project {
			cwd, piPath = web.cwd, filepath.Join(pi.cwd, ".pi", "mcp.json")
		}
		args := []string{script, pkg, piPath, st.name, map[bool]string{true: "true", false: "false"}[st.enabled]}
		if st.new {
			args = append(args, "override")
		}
		if out, err := exec.Command(node, args...).CombinedOutput(); err != nil {
			t.Fatalf("pi's updateMcpServerConfig: %v: %s", err, out)
		}
		s := &Store{AgentDir: web.agentDir}
		if err := s.SetMCPEnabled(cwd, true, st.name, st.enabled, st.new); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(piPath)
		got, _ := os.ReadFile(s.MCPPath(cwd))
		if string(got) != string(want) {
			t.Fatalf("%+v: piweb wrote\n%s\npi wrote\n%s", st, got, want)
		}
		if !st.project && st.name == "files" {
			list := piMCPList(t, web.agentDir)
			if disabled := strings.Contains(list, "files: disabled"); disabled == st.enabled {
				t.Errorf("enabled=%v: pi mcp list says\n%s", st.enabled, list)
			}
		}
	}
	if err := (&Store{AgentDir: web.agentDir}).SetMCPEnabled("", true, "nope", false, false); !errors.Is(err, ErrNoMCPServer) {
		t.Errorf("an unknown server: %v", err)
	}
}

// piMCPList is `pi mcp list` over agentDir (it exits 1 when a server
// fails to connect, as these do).
func piMCPList(t *testing.T, agentDir string) string {
	t.Helper()
	cmd := exec.Command(pitest.PiBin(t), "mcp", "list")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir, "PI_OFFLINE=1")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestAddMCPServerAsPi adds a server with pi 1.6.0's own `pi mcp add`
// code (addMcpServerConfig) in one copy and with piweb in another: to no
// file, to a tab-indented file with other content, over an entry of the
// same name; the files must be byte for byte the same.
func TestAddMCPServerAsPi(t *testing.T) {
	node, pkg := pitest.Node(t), pitest.V16.PackageDir(t)
	for _, tc := range []struct{ name, before string }{
		{"no file", ""},
		{"tabs and other content", "{\n\t\"autoEnableCodemode\": true,\n\t\"mcpServers\": {\n\t\t\"files\": {\"command\": \"x\"}\n\t}\n}\n"},
		{"replaced", `{"mcpServers":{"piweb":{"command":"old","enabled":false},"web":{"url":"http://127.0.0.1:9/mcp"}}}`},
	} {
		pi, web := t.TempDir(), t.TempDir()
		if tc.before != "" {
			os.WriteFile(filepath.Join(pi, "mcp.json"), []byte(tc.before), 0o644)
			os.WriteFile(filepath.Join(web, "mcp.json"), []byte(tc.before), 0o644)
		}
		config := `{"command":"/usr/bin/piweb","args":["mcp"],"exposure":"direct"}`
		if out, err := exec.Command(node, filepath.Join("testdata", "pi-mcp-add.mjs"), pkg, filepath.Join(pi, "mcp.json"), "piweb", config).CombinedOutput(); err != nil {
			t.Fatalf("pi's addMcpServerConfig: %v: %s", err, out)
		}
		if err := (&Store{AgentDir: web}).AddMCPServer("piweb", "/usr/bin/piweb", []string{"mcp"}, "direct"); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(pi, "mcp.json"))
		got, _ := os.ReadFile(filepath.Join(web, "mcp.json"))
		if string(got) != string(want) {
			t.Errorf("%s: piweb wrote\n%s\npi wrote\n%s", tc.name, got, want)
		}
	}
}
