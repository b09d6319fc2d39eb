package server

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

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
	q := "/api/trust?cwd=" + url.QueryEscape(cwd)
	if got := r.json("GET", q, nil, 200); got["skipped"] != true || got["trusted"] != false || got["decision"] != nil {
		t.Fatalf("before: %v", got)
	}
	if _, err := os.Stat(filepath.Join(r.srv.agentDir, "trust.json")); !os.IsNotExist(err) {
		t.Fatal("asking wrote trust.json")
	}
	if got := r.json("POST", "/api/trust", map[string]string{"cwd": cwd}, 200); got["skipped"] != false || got["trusted"] != true {
		t.Fatalf("after trusting: %v", got)
	}
	if _, err := os.Stat(filepath.Join(r.srv.agentDir, "trust.json")); err != nil {
		t.Fatal(err)
	}
	r.json("GET", "/api/trust?cwd=relative", nil, 400)
	r.json("POST", "/api/trust", map[string]string{"cwd": filepath.Join(cwd, "missing")}, 400)
}

// TestLiveTrustSession: "trust for this session only" through the API on
// real pi: trust.json stays as it was, the session is reported approved
// (a session that was not is still skipped), and its next pi, started with
// --approve, offers the folder's project prompt.
func TestLiveTrustSession(t *testing.T) {
	r, llm := liveRig(t)
	cwd := r.d.Projects + "/notes"
	if err := os.MkdirAll(filepath.Join(cwd, ".pi", "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".pi", "prompts", "hello.md"), []byte("Say hello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	llm.Enqueue(fakellm.Text("Hi."))
	id := r.json("POST", "/api/sessions", map[string]any{"cwd": cwd, "message": "hi"}, 200)["id"].(string)
	cmds := "/api/sessions/" + id + "/commands"
	if hasPrompt(r, cmds, "hello") {
		t.Fatal("pi loaded the untrusted folder's prompt")
	}
	body := map[string]string{"cwd": cwd, "session": id}
	testkit.Eventually(t, func() bool { // 409 until pi settles
		res := r.do("POST", "/api/trust", body)
		res.Body.Close()
		return res.StatusCode == 200
	}, 30*time.Second, "trust for this session")
	q := "/api/trust?cwd=" + url.QueryEscape(cwd)
	if got := r.json("GET", q+"&session="+id, nil, 200); got["approved"] != true || got["skipped"] != false {
		t.Errorf("the approved session: %v", got)
	}
	if got := r.json("GET", q, nil, 200); got["approved"] != nil || got["skipped"] != true {
		t.Errorf("the folder: %v", got)
	}
	if _, err := os.Stat(filepath.Join(r.srv.agentDir, "trust.json")); !os.IsNotExist(err) {
		t.Error("trusting a session wrote trust.json")
	}
	if !hasPrompt(r, cmds, "hello") {
		t.Error("the approved session's pi does not offer the folder's prompt")
	}
}

// hasPrompt asks the session's pi (get_commands) for the command name.
func hasPrompt(r *rig, cmds, name string) bool {
	out := r.json("POST", cmds, map[string]string{"type": "get_commands"}, 200)
	for _, c := range out["data"].(map[string]any)["commands"].([]any) {
		if c.(map[string]any)["name"] == name {
			return true
		}
	}
	return false
}
