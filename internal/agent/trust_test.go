package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"piweb/internal/testkit"
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
	testkit.WriteFile(t, filepath.Join(r.work, ".pi", "prompts", "hello.md"), "Say hello.\n")
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
	t.Parallel()
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
	// The replaced file is kept as a backup, byte for byte.
	backups, _ := filepath.Glob(trustPath(agentDir) + ".piweb-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups %v, want one", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != string(encodeTrust(map[string]*bool{"/z": &f, "/y": nil})) {
		t.Errorf("backup holds %q", b)
	}
	// A first decision creates the file, whole.
	fresh := t.TempDir()
	if err := TrustProject(fresh, root); err != nil {
		t.Fatal(err)
	}
	if pt, err := CheckProjectTrust(fresh, root); err != nil || pt.Decision == nil || !*pt.Decision {
		t.Errorf("a first decision: %+v %v", pt, err)
	}
}

func jsonString(s string) []byte { b, _ := appendJSONString(nil, s); return b }

// TestLiveApprove is issue 12.5's other choice, "trust for this session
// only": a session approved through the supervisor gets a pi started with
// --approve, which offers the untrusted folder's project prompt, while
// trust.json stays as it was; a new session can start approved too.
func TestLiveApprove(t *testing.T) {
	r := newRig(t)
	testkit.WriteFile(t, filepath.Join(r.work, ".pi", "prompts", "hello.md"), "Say hello.\n")
	s := r.supervisor(func(c *Config) { c.Base.Args = []string{"--no-context-files"} })
	ctx := ctxT(t)
	file := r.seedSession(s)
	if workerHas(t, s, file, "hello") || s.Approved(file) {
		t.Fatal("pi loaded the untrusted folder's prompt before approval")
	}
	if err := s.Approve(ctx, file); err != nil {
		t.Fatal(err)
	}
	if !s.Approved(file) || !workerHas(t, s, file, "hello") {
		t.Error("the approved session's pi does not offer the folder's prompt")
	}
	if pt, err := CheckProjectTrust(r.agentDir, r.work); err != nil || pt.Decision != nil || !pt.Skipped {
		t.Errorf("approving a session touched trust.json: %+v %v", pt, err)
	}
	w, err := s.StartNewWith(ctx, r.work, NewSession{Approve: true})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Approved(w.Key()) || !workerHas(t, s, w.Key(), "hello") {
		t.Error("a new session started approved does not offer the folder's prompt")
	}
}

// workerHas reports whether the session's worker (started if need be)
// offers the slash command name.
func workerHas(t *testing.T, s *Supervisor, file, name string) bool {
	t.Helper()
	w, err := s.Worker(ctxT(t), file)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []SlashCommand
	if err := w.Do(func(c *Client) error { cmds, err = c.GetCommands(ctxT(t)); return err }); err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(cmds, func(c SlashCommand) bool { return c.Name == name })
}
