package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestGitChangesAPI: a session in a repository gets its branch, changed
// files and each file's diff; one in a plain folder or a gone folder is
// told so; a path out of the repository is refused.
func TestGitChangesAPI(t *testing.T) {
	r := newRig(t, Options{})
	repo := t.TempDir()
	pitest.Git(t, repo, "init", "-q", "-b", "trunk")
	testkit.WriteFile(t, filepath.Join(repo, "a.go"), "package a\n")
	pitest.Git(t, repo, "add", ".")
	pitest.Git(t, repo, "commit", "-qm", "one")
	testkit.WriteFile(t, filepath.Join(repo, "a.go"), "package a\n\nvar X = 1\n")
	testkit.WriteFile(t, filepath.Join(repo, "new file.txt"), "hello\n")
	id := r.sessionIn(repo)

	api, ctx := r.api(), t.Context()
	got, err := api.GitStatus(ctx, id)
	if err != nil || !got.Available || got.Status == nil || got.Status.Branch != "trunk" || got.Status.Total != 2 {
		t.Fatalf("status: %+v, %v", got, err)
	}
	d, err := api.GitDiff(ctx, id, "a.go", "head")
	if err != nil || !strings.Contains(d.Text, "+var X = 1") {
		t.Errorf("diff: %+v, %v", d, err)
	}
	d, err = api.GitDiff(ctx, id, "new file.txt", "untracked")
	if err != nil || !strings.Contains(d.Text, "+hello") {
		t.Errorf("untracked diff: %+v, %v", d, err)
	}
	_, err = api.GitDiff(ctx, id, "../x", "head")
	wantErr(t, "path out of the repository", err, 403, "forbidden")

	plain := r.sessionIn(t.TempDir())
	if got, err := api.GitStatus(ctx, plain); err != nil || got.Available || got.Reason != "not_repo" {
		t.Errorf("plain folder: %+v, %v", got, err)
	}
	gone := r.sessionIn(filepath.Join(repo, "gone"))
	if got, err := api.GitStatus(ctx, gone); err != nil || got.Reason != "no_dir" {
		t.Errorf("gone folder: %+v, %v", got, err)
	}
}

// TestGitTopic: a page following g/<id> on its stream gets git_changed
// when the working tree changes (the poller's interval through
// app.Config.GitPoll).
func TestGitTopic(t *testing.T) {
	r := newRig(t, Options{}, app.Config{GitPoll: 20 * time.Millisecond})
	repo := t.TempDir()
	pitest.Git(t, repo, "init", "-q", "-b", "main")
	id := r.sessionIn(repo)
	ctx := t.Context()
	api := r.api()
	stream, err := api.OpenStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if err := api.Subscribe(ctx, apitype.StreamRequest{Stream: stream.ID, Topic: "g/" + id}); err != nil {
		t.Fatal(err)
	}
	if f, err := stream.Frame(); err != nil || f.Topic != "g/"+id {
		t.Fatalf("first event %+v, %v", f, err)
	}
	gitChanged := func() {
		t.Helper()
		for {
			f, err := stream.Frame()
			if err != nil {
				t.Fatal(err)
			}
			var inner struct{ Type string }
			json.Unmarshal(f.Event, &inner)
			if f.Topic == "g/"+id && inner.Type == "git_changed" {
				return
			}
		}
	}
	gitChanged() // the poller's first look, published whatever it saw
	testkit.WriteFile(t, filepath.Join(repo, "new.txt"), "x\n")
	gitChanged() // only a change of git's state publishes again
	v, err := api.GitStatus(ctx, id)
	if err != nil || v.Status == nil || v.Status.Total != 1 {
		t.Errorf("after git_changed the status is %+v, %v, want new.txt", v.Status, err)
	}
}
