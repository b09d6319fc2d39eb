package server

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
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
