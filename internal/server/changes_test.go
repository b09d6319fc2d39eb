package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/app"
	"piweb/internal/pitest"
)

// gitIn runs git in dir for a test's setup.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		pitest.Missing(t, "git not on PATH")
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestGitChangesAPI: a session in a repository gets its branch, changed
// files and each file's diff; one in a plain folder or a gone folder is
// told so; a path out of the repository is refused.
func TestGitChangesAPI(t *testing.T) {
	r := newRig(t, Options{})
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "trunk")
	os.WriteFile(filepath.Join(repo, "a.go"), []byte("package a\n"), 0o644)
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-qm", "one")
	os.WriteFile(filepath.Join(repo, "a.go"), []byte("package a\n\nvar X = 1\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "new file.txt"), []byte("hello\n"), 0o644)
	dir := filepath.Dir(r.find("Dark theme")["path"].(string))
	id := newSessionIn(t, r, dir, repo)

	got := r.json("GET", "/api/sessions/"+id+"/git/status", nil, 200)
	st, _ := got["status"].(map[string]any)
	if got["available"] != true || st["branch"] != "trunk" || st["total"] != float64(2) {
		t.Fatalf("status: %v", got)
	}
	d := r.json("GET", "/api/sessions/"+id+"/git/diff?path=a.go&which=head", nil, 200)
	if text, _ := d["text"].(string); !strings.Contains(text, "+var X = 1") {
		t.Errorf("diff: %v", d)
	}
	d = r.json("GET", "/api/sessions/"+id+"/git/diff?path=new+file.txt&which=untracked", nil, 200)
	if text, _ := d["text"].(string); !strings.Contains(text, "+hello") {
		t.Errorf("untracked diff: %v", d)
	}
	if code := errCode(t, r.json("GET", "/api/sessions/"+id+"/git/diff?path=../x&which=head", nil, 403)); code != "forbidden" {
		t.Errorf("path out of the repository: %s", code)
	}

	plain := newSessionIn(t, r, dir, t.TempDir())
	if got := r.json("GET", "/api/sessions/"+plain+"/git/status", nil, 200); got["available"] != false || got["reason"] != "not_repo" {
		t.Errorf("plain folder: %v", got)
	}
	gone := newSessionIn(t, r, dir, filepath.Join(repo, "gone"))
	if got := r.json("GET", "/api/sessions/"+gone+"/git/status", nil, 200); got["reason"] != "no_dir" {
		t.Errorf("gone folder: %v", got)
	}
}

// TestGitTopic: a page following g/<id> on its stream gets git_changed
// when the working tree changes (the poller's interval through
// app.Config.GitPoll).
func TestGitTopic(t *testing.T) {
	r := newRig(t, Options{}, app.Config{GitPoll: 20 * time.Millisecond})
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	id := newSessionIn(t, r, filepath.Dir(r.find("Dark theme")["path"].(string)), repo)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, _ := sseClient(ctx, t, r.ts.URL+"/api/stream", "")
	sid, _ := next(t, ch).data["id"].(string)
	r.json("POST", "/api/stream/subscribe", map[string]any{"stream": sid, "topic": "g/" + id}, 200)
	if ev := next(t, ch); ev.data["topic"] != "g/"+id {
		t.Fatalf("first event %v", ev.data)
	}
	gitChanged := func() {
		t.Helper()
		for {
			ev := next(t, ch)
			inner, _ := ev.data["event"].(map[string]any)
			if ev.data["topic"] == "g/"+id && inner["type"] == "git_changed" {
				return
			}
		}
	}
	gitChanged() // the poller's first look, published whatever it saw
	os.WriteFile(filepath.Join(repo, "new.txt"), []byte("x\n"), 0o644)
	gitChanged() // only a change of git's state publishes again
	st, _ := r.json("GET", "/api/sessions/"+id+"/git/status", nil, 200)["status"].(map[string]any)
	if st["total"] != float64(1) {
		t.Errorf("after git_changed the status has %v changes, want new.txt", st["total"])
	}
}
