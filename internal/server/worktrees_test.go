package server

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorktreesAPI: list, create (a folder with a space and non-ASCII
// letters, on a new branch) and remove a worktree; a worktree with
// uncommitted work is only removed when confirmed; the repository of each
// project folder is reported for the sidebar, one for both worktrees.
func TestWorktreesAPI(t *testing.T) {
	r := newRig(t, Options{})
	parent := t.TempDir()
	repo := filepath.Join(parent, "proj")
	os.Mkdir(repo, 0o755)
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "start")
	dir := filepath.Dir(r.find("Dark theme")["path"].(string))
	id := newSessionIn(t, r, dir, repo)
	base := "/api/sessions/" + id + "/worktrees"
	got := r.json("GET", base, nil, 200)
	if got["available"] != true || len(got["worktrees"].([]any)) != 1 {
		t.Fatalf("list: %v", got)
	}
	made := r.json("POST", base, map[string]any{"folder": "proj feat ü", "branch": "feat"}, 200)
	wt := made["path"].(string)
	if wt != filepath.Join(parent, "proj feat ü") {
		t.Errorf("worktree at %s", wt)
	}
	r.json("POST", base, map[string]any{"folder": "../escape", "branch": "x"}, 400)
	wtID := newSessionIn(t, r, dir, wt)
	repos := r.json("GET", "/api/repos", nil, 200)["repos"].(map[string]any)
	a, _ := repos[repo].(map[string]any)
	b, _ := repos[wt].(map[string]any)
	if a == nil || b == nil || a["common"] != b["common"] || b["branch"] != "feat" {
		t.Errorf("repos: %v", repos)
	}
	_ = wtID

	os.WriteFile(filepath.Join(wt, "wip.txt"), []byte("work\n"), 0o644)
	if got := r.json("POST", base+"/remove", map[string]any{"path": wt}, 200); got["dirty"] != true || got["removed"] != false {
		t.Errorf("dirty remove: %v", got)
	}
	if _, err := os.Stat(filepath.Join(wt, "wip.txt")); err != nil {
		t.Fatal("refused remove lost work")
	}
	r.json("POST", base+"/remove", map[string]any{"path": wt, "force": true}, 200)
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("after remove: %v", err)
	}
	r.json("POST", base+"/remove", map[string]any{"path": "/etc"}, 404)
	r.json("POST", base+"/remove", map[string]any{"path": repo, "force": true}, 403)

	plain := newSessionIn(t, r, dir, t.TempDir())
	if got := r.json("GET", "/api/sessions/"+plain+"/worktrees", nil, 200); got["available"] != false || got["reason"] != "not_repo" {
		t.Errorf("plain folder: %v", got)
	}
}
