package server

import (
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/testkit"
)

// testFindFiles (in TestGitAPI): "@" completion's paths in a repository
// (ignored files left out, a name with a space found), and a gone folder
// not found.
func testFindFiles(t *testing.T, r *rig) {
	api, ctx := r.api(), t.Context()
	repo := gitRepo(t)
	os.MkdirAll(filepath.Join(repo, "src", "web ui"), 0o755)
	testkit.WriteFile(t, filepath.Join(repo, "src/web ui/main page.js"), "")
	testkit.WriteFile(t, filepath.Join(repo, "debug.log"), "")
	testkit.WriteFile(t, filepath.Join(repo, ".gitignore"), "*.log\n")
	id := r.sessionIn(repo)
	a, err := api.FindFiles(ctx, id, "mainpage", 5)
	if err != nil || len(a.Matches) == 0 || a.Matches[0].Path != "src/web ui/main page.js" || a.Partial || a.Files != 3 {
		t.Fatalf("find: %+v, %v", a, err)
	}
	if a, _ := api.FindFiles(ctx, id, "debug", 5); len(a.Matches) != 0 {
		t.Errorf("an ignored file: %+v", a)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	_, err = api.FindFiles(ctx, r.sessionIn(gone), "x", 0)
	wantErr(t, "a gone folder", err, 404, "not_found")
}
