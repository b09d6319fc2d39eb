package piconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// installedDirs writes an agent dir and a project with MCP servers,
// packages and extensions in each.
func installedDirs(t *testing.T) (agentDir, cwd string) {
	agentDir, cwd = t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(agentDir, "mcp.json"), `{"mcpServers":{"files":{"command":"piweb-no-such-server","args":["--root","."]},"web":{"url":"http://127.0.0.1:1/mcp"}}}`)
	testkit.WriteFile(t, filepath.Join(agentDir, "settings.json"), `{"packages":["npm:pi-skills-pack",{"source":"git:github.com/x/y"}],"extensions":["builtin:codemode"]}`)
	testkit.WriteFile(t, filepath.Join(agentDir, "extensions", "quiet.ts"), `export default function (pi) {}`)
	testkit.WriteFile(t, filepath.Join(agentDir, "extensions", "notes.md"), `not an extension`)
	testkit.WriteFile(t, filepath.Join(cwd, ".pi", "mcp.json"), `{"mcpServers":{"db":{"command":"piweb-no-such-db"}}}`)
	testkit.WriteFile(t, filepath.Join(cwd, ".pi", "extensions", "local", "index.ts"), `export default function (pi) {}`)
	testkit.WriteFile(t, filepath.Join(cwd, ".pi", "settings.json"), `{not json`)
	return agentDir, cwd
}

// TestInstalled: what the Resources list adds to RPC's commands.
func TestInstalled(t *testing.T) {
	agentDir, cwd := installedDirs(t)
	s := &Store{AgentDir: agentDir}
	var got []string
	for _, x := range s.Installed(cwd) {
		got = append(got, x.Kind+" "+x.Scope+" "+x.Name+" "+x.Detail)
	}
	want := []string{
		"extension project local ",
		"extension user builtin:codemode ",
		"extension user quiet ",
		"mcp project db piweb-no-such-db",
		"mcp user files piweb-no-such-server --root .",
		"mcp user web http://127.0.0.1:1/mcp",
		"package user github.com/x/y git:github.com/x/y",
		"package user pi-skills-pack npm:pi-skills-pack",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("installed (-want +got):\n%s", d)
	}
	if n := len(s.Installed("")); n != 6 {
		t.Errorf("without a project: %d items, want 6", n)
	}
}

// TestInstalledMCPMatchesPi: the MCP servers listed are the ones pi 1.6.0
// itself names (`pi mcp list`, whose servers here fail to start at once).
func TestInstalledMCPMatchesPi(t *testing.T) {
	agentDir, cwd := installedDirs(t)
	os.Remove(filepath.Join(cwd, ".pi", "mcp.json")) // pi asks before trusting a project's
	cmd := exec.Command(pitest.PiBin(t), "mcp", "list")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir, "PI_OFFLINE=1", "HOME="+t.TempDir())
	out, _ := cmd.CombinedOutput() // exit status 1: no server could start
	var piNames []string
	for _, m := range regexp.MustCompile(`(?m)^(\S+): \S+ \(.*global\)`).FindAllStringSubmatch(string(out), -1) {
		piNames = append(piNames, m[1])
	}
	var ours []string
	for _, x := range (&Store{AgentDir: agentDir}).Installed(cwd) {
		if x.Kind == "mcp" {
			ours = append(ours, x.Name)
		}
	}
	slices.Sort(piNames)
	if d := cmp.Diff(piNames, ours); d != "" || len(ours) != 2 {
		t.Errorf("MCP servers (-pi +piweb):\n%s\npi said:\n%s", d, out)
	}
}
