package server

import (
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/apitype"
	"piweb/internal/pitest"
)

// TestWorktreesAPI: list, create (a folder with a space and non-ASCII
// letters, on a new branch) and remove a worktree; a worktree with
// uncommitted work is only removed when confirmed; the repository of each
// project folder is reported for the sidebar, one for both worktrees.
func TestWorktreesAPI(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	parent := t.TempDir()
	repo := filepath.Join(parent, "proj")
	os.Mkdir(repo, 0o755)
	pitest.Git(t, repo, "init", "-q", "-b", "main")
	pitest.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "start")
	id := r.sessionIn(repo)
	got, err := api.Worktrees(ctx, id)
	if err != nil || !got.Available || len(got.Worktrees) != 1 {
		t.Fatalf("list: %+v, %v", got, err)
	}
	made, err := api.AddWorktree(ctx, id, apitype.AddWorktree{Folder: "proj feat ü", Branch: "feat"})
	if err != nil {
		t.Fatal(err)
	}
	wt := made.Path
	if wt != filepath.Join(parent, "proj feat ü") {
		t.Errorf("worktree at %s", wt)
	}
	_, err = api.AddWorktree(ctx, id, apitype.AddWorktree{Folder: "../escape", Branch: "x"})
	wantErr(t, "a folder that climbs out", err, 400, "")
	wtID := r.sessionIn(wt)
	repos, err := api.Repos(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, b := repos.Repos[repo], repos.Repos[wt]
	if a == nil || b == nil || a.Common != b.Common || b.Branch != "feat" {
		t.Errorf("repos: %v", repos.Repos)
	}
	_ = wtID

	os.WriteFile(filepath.Join(wt, "wip.txt"), []byte("work\n"), 0o644)
	if got, err := api.RemoveWorktree(ctx, id, apitype.RemoveWorktree{Path: wt}); err != nil || !got.Dirty || got.Removed {
		t.Errorf("dirty remove: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(wt, "wip.txt")); err != nil {
		t.Fatal("refused remove lost work")
	}
	if _, err := api.RemoveWorktree(ctx, id, apitype.RemoveWorktree{Path: wt, Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("after remove: %v", err)
	}
	_, err = api.RemoveWorktree(ctx, id, apitype.RemoveWorktree{Path: "/etc"})
	wantErr(t, "not a worktree", err, 404, "")
	_, err = api.RemoveWorktree(ctx, id, apitype.RemoveWorktree{Path: repo, Force: true})
	wantErr(t, "the main worktree", err, 403, "")

	plain := r.sessionIn(t.TempDir())
	if got, err := api.Worktrees(ctx, plain); err != nil || got.Available || got.Reason != "not_repo" {
		t.Errorf("plain folder: %+v, %v", got, err)
	}
}
