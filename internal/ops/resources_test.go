package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/agent"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// resolver runs pi's own resolution with the pinned pi.
type resolver struct{ o agent.Options }

func (r resolver) ResourceStates(ctx context.Context, cwd string, trusted bool) (agent.ResourceStates, error) {
	return agent.ResolveResources(ctx, r.o, cwd, trusted)
}

// resourceRig is an agent dir with a skill, a prompt and a pi package
// (global), and a trusted project with a prompt and a package of its own.
type resourceRig struct {
	root, agentDir, cwd string
	rs                  resolver
}

func skill(name string) string {
	return "---\nname: " + name + "\ndescription: the " + name + " skill\n---\nDo " + name + ".\n"
}

func newResourceRig(t *testing.T, pi *agent.Pi) *resourceRig {
	t.Helper()
	root := t.TempDir()
	r := &resourceRig{root: root, agentDir: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj")}
	testkit.WriteFile(t, filepath.Join(r.agentDir, "skills", "alpha", "SKILL.md"), skill("alpha"))
	testkit.WriteFile(t, filepath.Join(r.agentDir, "prompts", "greet.md"), "---\ndescription: greet\n---\nSay hi\n")
	testkit.WriteFile(t, filepath.Join(r.agentDir, "settings.json"), `{"theme":"dark","packages":["../pkg"],"x-unknown":{"kept":true}}`)
	testkit.WriteFile(t, filepath.Join(root, "pkg", "package.json"), `{"name":"pkg","version":"1.0.0"}`)
	testkit.WriteFile(t, filepath.Join(root, "pkg", "skills", "beta", "SKILL.md"), skill("beta"))
	testkit.WriteFile(t, filepath.Join(root, "pkg", "prompts", "pkgp.md"), "---\ndescription: from the package\n---\nP\n")
	testkit.WriteFile(t, filepath.Join(root, "pkg2", "package.json"), `{"name":"pkg2","version":"1.0.0"}`)
	testkit.WriteFile(t, filepath.Join(root, "pkg2", "skills", "gamma", "SKILL.md"), skill("gamma"))
	testkit.WriteFile(t, filepath.Join(r.cwd, ".pi", "prompts", "proj.md"), "---\ndescription: project prompt\n---\nQ\n")
	testkit.WriteFile(t, filepath.Join(r.cwd, ".pi", "settings.json"), `{"packages":["../../pkg2"]}`)
	if err := agent.TrustProject(r.agentDir, r.cwd); err != nil {
		t.Fatal(err)
	}
	r.rs = resolver{agent.Options{Pi: pi, AgentDir: r.agentDir}}
	return r
}

func findPi(t *testing.T) *agent.Pi {
	t.Helper()
	pi, err := agent.Find(context.Background(), pitest.PiBin(t))
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

// piConfigToggle presses space on the resource in pi's own `pi config`
// list (testdata/pi-config-toggle.mjs) and answers its new state.
func piConfigToggle(t *testing.T, r *resourceRig, scope, typ, path string) bool {
	t.Helper()
	enabled, _ := piConfigPress(t, r, scope, typ, path)
	return enabled
}

// piConfigPress is piConfigToggle answering also the project override
// state pi config shows after.
func piConfigPress(t *testing.T, r *resourceRig, scope, typ, path string) (bool, string) {
	t.Helper()
	script := filepath.Join(pitest.ModuleRoot(t), "internal", "piconfig", "testdata", "pi-config-toggle.mjs")
	cmd := exec.Command(pitest.Node(t), script, pitest.V16.PackageDir(t), r.cwd, r.agentDir, scope, typ, path, "1")
	cmd.Dir = r.cwd
	cmd.Env = append(os.Environ(), "PI_OFFLINE=1", "PI_CODING_AGENT_DIR="+r.agentDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi config toggle: %v: %s", err, stderr.Bytes())
	}
	var res struct {
		Enabled bool
		State   string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("pi config toggle answered %q", out)
	}
	return res.Enabled, res.State
}

func (r *resourceRig) settings(t *testing.T) (global, project string) {
	t.Helper()
	g, _ := os.ReadFile(filepath.Join(r.agentDir, "settings.json"))
	p, _ := os.ReadFile(filepath.Join(r.cwd, ".pi", "settings.json"))
	return string(g), string(p)
}

// resource is how pi names the resource rel of type typ in r: its path
// under r's root, or rel itself for a built-in extension.
func (r *resourceRig) resource(typ, rel string) string {
	if typ == "extensions" {
		return rel
	}
	return filepath.Join(r.root, rel)
}

// setting is SetResourceEnabled or SetProjectOverride, with its state.
type setting[V any] func(ctx context.Context, rs Resolver, agentDir, cwd, typ, path string, v V) (agent.ResourceStates, error)

// set makes a change with piweb in r and returns pi's resolution after it.
func set[V any](t *testing.T, r *resourceRig, change setting[V], typ, path string, v V) agent.ResourceStates {
	t.Helper()
	st, err := change(context.Background(), r.rs, r.agentDir, r.cwd, typ, path, v)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSetResourceEnabledAsPiConfig toggles each kind of resource off and
// on again with pi's own `pi config` component in one copy and with
// piweb in another: the settings files must be byte for byte the same,
// and pi's resolution must show piweb's state.
func TestSetResourceEnabledAsPiConfig(t *testing.T) {
	pi := findPi(t)
	cases := []struct {
		name, scope, typ, rel string
	}{
		{"user skill", "global", "skills", "agent/skills/alpha/SKILL.md"},
		{"user prompt", "global", "prompts", "agent/prompts/greet.md"},
		{"user package prompt", "global", "prompts", "pkg/prompts/pkgp.md"},
		{"built-in extension", "global", "extensions", "builtin:mcp"},
		{"project prompt", "project", "prompts", "proj/.pi/prompts/proj.md"},
		{"project package skill", "project", "skills", "pkg2/skills/gamma/SKILL.md"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			oracle, web := newResourceRig(t, pi), newResourceRig(t, pi)
			opath, wpath := oracle.resource(c.typ, c.rel), web.resource(c.typ, c.rel)
			for _, want := range []bool{false, true} {
				if got := piConfigToggle(t, oracle, c.scope, c.typ, opath); got != want {
					t.Fatalf("pi config turned it to %v, want %v", got, want)
				}
				st := set(t, web, SetResourceEnabled, c.typ, wpath, want)
				og, op := oracle.settings(t)
				wg, wp := web.settings(t)
				if og != wg || op != wp {
					t.Fatalf("enabled=%v: settings differ from pi config's\npi global:  %s\npiweb:      %s\npi project: %s\npiweb:      %s", want, og, wg, op, wp)
				}
				if s, found := findResource(st, c.typ, wpath); !found || s.Enabled != want {
					t.Fatalf("enabled=%v: pi resolves %+v (found %v)", want, s, found)
				}
			}
		})
	}
}

// TestSetProjectOverrideAsPiConfig presses space three times on resources
// in `pi config --local` (pi's own component, project mode) in one copy
// and sets the same override states with piweb in another: inherited
// user resources (a skill, a package's prompt whose package the project
// does not name, a built-in extension) and a project prompt. The project
// settings must be byte for byte the same after each step, piweb must
// read back the state pi config shows, and pi's resolution the enabled
// state pi config reports.
func TestSetProjectOverrideAsPiConfig(t *testing.T) {
	pi := findPi(t)
	cases := []struct {
		name, typ, rel string
		states         []string
	}{
		{"inherited skill", "skills", "agent/skills/alpha/SKILL.md", []string{"unload", "load", "inherit"}},
		{"inherited package prompt", "prompts", "pkg/prompts/pkgp.md", []string{"unload", "load", "inherit"}},
		{"built-in extension", "extensions", "builtin:mcp", []string{"unload", "load", "inherit"}},
		{"project prompt", "prompts", "proj/.pi/prompts/proj.md", []string{"unload", "load", "inherit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			oracle, web := newResourceRig(t, pi), newResourceRig(t, pi)
			opath, wpath := oracle.resource(c.typ, c.rel), web.resource(c.typ, c.rel)
			for _, want := range c.states {
				enabled, state := piConfigPress(t, oracle, "project", c.typ, opath)
				if state != want {
					t.Fatalf("pi config went to %q, want %q", state, want)
				}
				st := set(t, web, SetProjectOverride, c.typ, wpath, want)
				_, op := oracle.settings(t)
				_, wp := web.settings(t)
				// An inherited file is named by its absolute path.
				op, wp = strings.ReplaceAll(op, oracle.root, "ROOT"), strings.ReplaceAll(wp, web.root, "ROOT")
				if op != wp {
					t.Fatalf("%s: project settings differ from pi config's\npi:    %s\npiweb: %s", want, op, wp)
				}
				var got *agent.ResourceState
				for i := range st.Project {
					if st.Project[i].Type == c.typ && st.Project[i].Path == wpath {
						got = &st.Project[i]
					}
				}
				if got == nil || got.Override != want || got.Enabled != enabled {
					t.Fatalf("%s: piweb shows %+v, pi config enabled=%v", want, got, enabled)
				}
			}
		})
	}
}
