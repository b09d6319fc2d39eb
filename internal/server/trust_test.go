package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// TestTrustRoutes: a folder with a project prompt is reported as skipped
// until the user trusts it; trusting writes pi's trust.json in the agent
// dir (TestLiveProjectTrust in internal/agent checks real pi takes it).
func TestTrustRoutes(t *testing.T) {
	r := newRig(t, Options{})
	cwd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, ".pi", "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	api, ctx := r.api(), t.Context()
	if got, err := api.Trust(ctx, cwd, ""); err != nil || !got.Skipped || got.Trusted || got.Decision != nil {
		t.Fatalf("before: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(r.srv.agentDir, "trust.json")); !os.IsNotExist(err) {
		t.Fatal("asking wrote trust.json")
	}
	if got, err := api.SetTrust(ctx, apitype.TrustRequest{Cwd: cwd}); err != nil || got.Skipped || !got.Trusted {
		t.Fatalf("after trusting: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(r.srv.agentDir, "trust.json")); err != nil {
		t.Fatal(err)
	}
	_, err := api.Trust(ctx, "relative", "")
	wantErr(t, "a relative cwd", err, 400, "")
	_, err = api.SetTrust(ctx, apitype.TrustRequest{Cwd: filepath.Join(cwd, "missing")})
	wantErr(t, "a missing folder", err, 400, "")
	// Asking about a folder that is gone (an imported session's) is not
	// an error (issue 25.8).
	if got, err := api.Trust(ctx, filepath.Join(cwd, "missing"), ""); err != nil || !got.Missing || got.Skipped {
		t.Errorf("a missing folder: %+v, %v", got, err)
	}
	if got, _ := api.Trust(ctx, cwd, ""); got.Missing {
		t.Errorf("an existing folder is missing: %+v", got)
	}
}

// TestLiveTrustSession: "trust for this session only" through the API on
// real pi: trust.json stays as it was, the session is reported approved
// (a session that was not is still skipped), and its next pi, started with
// --approve, offers the folder's project prompt.
func TestLiveTrustSession(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRig(t)
	cwd := r.d.Projects + "/notes"
	testkit.WriteFile(t, filepath.Join(cwd, ".pi", "prompts", "hello.md"), "Say hello.\n")
	llm.Enqueue(fakellm.Text("Hi."))
	api, ctx := r.api(), t.Context()
	id := create(t, api, agent.CreateRequest{Cwd: cwd, Message: "hi"})
	if hasPrompt(r, id, "hello") {
		t.Fatal("pi loaded the untrusted folder's prompt")
	}
	testkit.Eventually(t, func() error { // 409 until pi settles
		_, err := api.SetTrust(ctx, apitype.TrustRequest{Cwd: cwd, Session: id})
		return err
	}, 30*time.Second, "trust for this session")
	if got, err := api.Trust(ctx, cwd, id); err != nil || !got.Approved || got.Skipped {
		t.Errorf("the approved session: %+v, %v", got, err)
	}
	if got, err := api.Trust(ctx, cwd, ""); err != nil || got.Approved || !got.Skipped {
		t.Errorf("the folder: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(r.srv.agentDir, "trust.json")); !os.IsNotExist(err) {
		t.Error("trusting a session wrote trust.json")
	}
	if !hasPrompt(r, id, "hello") {
		t.Error("the approved session's pi does not offer the folder's prompt")
	}
}

// hasPrompt asks session id's pi (get_commands) for the command name.
func hasPrompt(r *rig, id, name string) bool {
	var data struct{ Commands []struct{ Name string } }
	json.Unmarshal(r.command(id, map[string]any{"type": "get_commands"}, 200).Data, &data)
	for _, c := range data.Commands {
		if c.Name == name {
			return true
		}
	}
	return false
}
