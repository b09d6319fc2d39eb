package agent

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// pkgRig is an agent dir, a project folder and a local pi package with
// one prompt template.
type pkgRig struct {
	o        Options
	cwd, pkg string
}

func newPkgRig(t *testing.T) *pkgRig {
	t.Helper()
	root := t.TempDir()
	r := &pkgRig{o: Options{Pi: testPiVersion(t, pitest.V16), AgentDir: filepath.Join(root, "agent")},
		cwd: filepath.Join(root, "proj"), pkg: filepath.Join(root, "pkgx")}
	for path, text := range map[string]string{
		filepath.Join(r.pkg, "package.json"):            `{"name":"pkgx","version":"1.0.0"}`,
		filepath.Join(r.pkg, "prompts", "pkgprompt.md"): "---\ndescription: from pkgx\n---\nP\n",
		filepath.Join(r.cwd, "README.md"):               "# proj\n",
	} {
		testkit.WriteFile(t, path, text)
	}
	return r
}

// piList is `pi list`: pi's own account of the installed packages.
func (r *pkgRig) piList(t *testing.T) string {
	t.Helper()
	cmd := r.o.plain(r.o.Pi, "list")
	cmd.Dir = r.cwd
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pi list: %v: %s", err, out)
	}
	return string(out)
}

func (r *pkgRig) run(t *testing.T, verb, source string, timeout time.Duration) PackageRun {
	t.Helper()
	res, err := RunPackageCommand(context.Background(), r.o, r.cwd, verb, source, false, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPackageCommand, on real pi 1.6.0: a local package installed through
// `pi install` is one `pi list` names and whose prompt pi's resolution
// loads; `pi remove` takes it away; pi's error for a source it cannot
// fetch comes back as output with a non-zero exit; a fetch that hangs is
// killed at the timeout.
func TestPackageCommand(t *testing.T) {
	r := newPkgRig(t)
	res := r.run(t, "install", r.pkg, time.Minute)
	if res.ExitCode != 0 || !strings.Contains(res.Output, "Installed "+r.pkg) || res.Command != "pi install "+r.pkg {
		t.Fatalf("install: %+v", res)
	}
	if list := r.piList(t); !strings.Contains(list, "../pkgx") {
		t.Fatalf("pi list after install:\n%s", list)
	}
	st, err := ResolveResources(context.Background(), r.o, r.cwd, false)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(r.pkg, "prompts", "pkgprompt.md")
	found := false
	for _, s := range st.Global {
		found = found || (s.Path == want && s.Enabled && s.Origin == "package" && s.Source == "../pkgx")
	}
	if !found {
		t.Fatalf("pi resolves %+v, want %s from ../pkgx", st.Global, want)
	}

	if res := r.run(t, "remove", r.pkg, time.Minute); res.ExitCode != 0 {
		t.Fatalf("remove: %+v", res)
	}
	if list := r.piList(t); strings.Contains(list, "pkgx") {
		t.Fatalf("pi list after remove:\n%s", list)
	}

	res = r.run(t, "install", "https://127.0.0.1:9/no/repo", time.Minute)
	if res.ExitCode == 0 || !strings.Contains(res.Output, "Error: git clone") {
		t.Fatalf("unfetchable source: %+v", res)
	}

	// A git server that accepts and never answers: pi waits on git.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	res = r.run(t, "install", "http://"+ln.Addr().String()+"/hang/repo", 3*time.Second)
	if !res.TimedOut {
		t.Fatalf("hanging fetch: %+v", res)
	}
	if _, err := RunPackageCommand(context.Background(), r.o, r.cwd, "install", "--help", false, time.Second); err != ErrPackageSource {
		t.Errorf("an option as source: %v", err)
	}
}

// TestResolveResourcesOldPi: pi 0.73.1, which has no built-in extensions,
// still lists its resources through its own package manager.
func TestResolveResourcesOldPi(t *testing.T) {
	root := t.TempDir()
	agentDir := filepath.Join(root, "agent")
	skill := filepath.Join(agentDir, "skills", "alpha", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	os.WriteFile(skill, []byte("---\nname: alpha\ndescription: the alpha skill\n---\nDo alpha.\n"), 0o644)
	o := Options{Pi: testPiVersion(t, pitest.V073), AgentDir: agentDir}
	st, err := ResolveResources(context.Background(), o, root, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Global) != 1 || st.Global[0].Path != skill || !st.Global[0].Enabled || st.Global[0].Type != "skills" {
		t.Errorf("pi 0.73.1 resolves %+v", st.Global)
	}
}
