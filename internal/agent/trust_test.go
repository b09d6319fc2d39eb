package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLiveProjectTrust is issue 12.5 against real pi: a folder with a
// project prompt is reported as skipped, and pi indeed does not offer the
// prompt; once TrustProject wrote pi's own decision to trust.json, the
// folder is trusted and a pi started there offers it.
func TestLiveProjectTrust(t *testing.T) {
	r := newRig(t)
	if !r.pi.Version.AtLeast(Version{0, 79, 0}) {
		t.Skip("pi before 0.79 has no project trust")
	}
	if err := os.MkdirAll(filepath.Join(r.work, ".pi", "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.work, ".pi", "prompts", "hello.md"), []byte("Say hello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pt, err := CheckProjectTrust(r.agentDir, r.work)
	if err != nil || !pt.Skipped || pt.Trusted || pt.Decision != nil || !slices.Contains(pt.Resources, filepath.Join(".pi", "prompts")) {
		t.Fatalf("before trusting: %+v %v", pt, err)
	}
	if hasCommand(t, r, "hello") {
		t.Fatal("pi loaded the untrusted folder's prompt")
	}
	if err := TrustProject(r.agentDir, r.work); err != nil {
		t.Fatal(err)
	}
	pt, err = CheckProjectTrust(r.agentDir, r.work)
	if err != nil || pt.Skipped || !pt.Trusted || pt.Decision == nil || !*pt.Decision || pt.DecidedFor != canonical(r.work) {
		t.Fatalf("after trusting: %+v %v", pt, err)
	}
	if !hasCommand(t, r, "hello") {
		t.Error("pi does not take piweb's trust.json decision")
	}
}

func hasCommand(t *testing.T, r *rig, name string) bool {
	t.Helper()
	c, _ := r.start(func(o *Options) { o.NoSession = true; o.Args = []string{"--no-context-files"} })
	cmds, err := c.GetCommands(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(cmds, func(c SlashCommand) bool { return c.Name == name })
}

// TestTrustStore checks trust.json's encoding (pi's writeTrustFile: sorted
// keys, two-space indent, a final newline) and the nearest decision.
func TestTrustStore(t *testing.T) {
	agentDir := t.TempDir()
	root := t.TempDir()
	child := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(child, 0o755); err != nil {
		t.Fatal(err)
	}
	f := false
	if err := os.WriteFile(trustPath(agentDir), encodeTrust(map[string]*bool{"/z": &f, "/y": nil}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := TrustProject(agentDir, root); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(trustPath(agentDir))
	want := "{\n  " + string(jsonString(canonical(root))) + ": true,\n  \"/y\": null,\n  \"/z\": false\n}\n"
	if string(b) != want {
		t.Errorf("trust.json:\n%s\nwant:\n%s", b, want)
	}
	pt, err := CheckProjectTrust(agentDir, child)
	if err != nil || pt.DecidedFor != canonical(root) || pt.Decision == nil || !*pt.Decision {
		t.Errorf("child folder: %+v %v", pt, err)
	}
	if _, err := os.Stat(trustPath(agentDir) + ".lock"); !os.IsNotExist(err) {
		t.Error("lock left behind")
	}
}

func jsonString(s string) []byte { b, _ := appendJSONString(nil, s); return b }
