package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// gitRepo makes a repository with one commit of a.txt and a user of its
// own (so a commit never depends on the machine's git identity).
func gitRepo(t *testing.T) string {
	repo := t.TempDir()
	pitest.Git(t, repo, "init", "-q", "-b", "main")
	pitest.Git(t, repo, "config", "user.name", "Pi User")
	pitest.Git(t, repo, "config", "user.email", "pi@example.com")
	testkit.WriteFile(t, filepath.Join(repo, "a.txt"), "one\n")
	pitest.Git(t, repo, "add", ".")
	pitest.Git(t, repo, "commit", "-qm", "first")
	return repo
}

func fileOf(v apitype.GitView, path string) *apitype.GitFile {
	if v.Status == nil {
		return nil
	}
	for i, f := range v.Status.Files {
		if f.Path == path {
			return &v.Status.Files[i]
		}
	}
	return nil
}

// wantSaid checks an API refusal's status and that its message says want.
func wantSaid(t *testing.T, what string, err error, status int, want string) {
	t.Helper()
	e, ok := err.(*client.Error)
	if !ok || e.Status != status || !strings.Contains(e.Message, want) {
		t.Errorf("%s: %v, want %d saying %q", what, err, status, want)
	}
}

// TestGitAPI: the Changes panel's git actions and the "@" completion's
// files, with real git, on one rig.
func TestGitAPI(t *testing.T) {
	t.Parallel() // its own rig
	r := newRig(t, Options{})
	t.Run("actions", func(t *testing.T) { testGitActions(t, r) })
	t.Run("refusals", func(t *testing.T) { testCommitRefusals(t, r) })
	t.Run("find", func(t *testing.T) { testFindFiles(t, r) })
}

// testGitActions: stage, unstage, discard (an untracked file only when
// confirmed), commit and the log; a commit with nothing staged is
// refused in words.
func testGitActions(t *testing.T, r *rig) {
	api, ctx := r.api(), t.Context()
	repo := gitRepo(t)
	id := r.sessionIn(repo)
	testkit.WriteFile(t, filepath.Join(repo, "a.txt"), "two\n")
	testkit.WriteFile(t, filepath.Join(repo, "new file.txt"), "new\n")

	_, err := api.GitCommit(ctx, id, "nothing yet")
	wantSaid(t, "commit with nothing staged", err, 400, "nothing is staged")
	v, err := api.GitStage(ctx, id, "a.txt", "new file.txt")
	if f := fileOf(v, "new file.txt"); err != nil || f == nil || f.Staged != "A" {
		t.Fatalf("stage: %+v, %v", v, err)
	}
	v, err = api.GitUnstage(ctx, id, "new file.txt")
	if f := fileOf(v, "new file.txt"); err != nil || f == nil || f.Kind != "untracked" {
		t.Fatalf("unstage: %+v, %v", v, err)
	}
	_, err = api.GitStage(ctx, id, "../out")
	wantErr(t, "a path out of the repository", err, 403, "forbidden")

	c, err := api.GitCommit(ctx, id, "Second: a.txt says two")
	if err != nil || c.Subject != "Second: a.txt says two" || c.Author != "Pi User" || len(c.Hash) != 40 {
		t.Fatalf("commit: %+v, %v", c, err)
	}
	log, err := api.GitCommits(ctx, id, 5)
	if err != nil || len(log.Commits) != 2 || log.Commits[0].Hash != c.Hash || log.Commits[1].Subject != "first" {
		t.Fatalf("log: %+v, %v", log, err)
	}

	testkit.WriteFile(t, filepath.Join(repo, "a.txt"), "scribble\n")
	_, err = api.GitDiscard(ctx, id, apitype.GitDiscard{Paths: []string{"a.txt", "new file.txt"}})
	wantSaid(t, "discarding an untracked file unconfirmed", err, 400, "untracked")
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "scribble\n" {
		t.Fatalf("a refused discard changed a.txt: %q", b)
	}
	v, err = api.GitDiscard(ctx, id, apitype.GitDiscard{Paths: []string{"a.txt"}})
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); err != nil || string(b) != "two\n" || fileOf(v, "a.txt") != nil {
		t.Fatalf("discard: %q, %+v, %v", b, v, err)
	}
	_, err = api.GitDiscard(ctx, id, apitype.GitDiscard{Paths: []string{"a.txt"}})
	wantSaid(t, "discarding no change", err, 404, "no change")
	if _, err = api.GitDiscard(ctx, id, apitype.GitDiscard{Paths: []string{"new file.txt"}, Untracked: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, "new file.txt")); !os.IsNotExist(err) {
		t.Errorf("confirmed discard left the untracked file: %v", err)
	}
}

// testCommitRefusals: a rejecting hook (its words shown, the changes
// still staged), a detached HEAD and a merge in progress are each said in
// words, and nothing is lost; an unborn branch has an empty log.
func testCommitRefusals(t *testing.T, r *rig) {
	api, ctx := r.api(), t.Context()
	repo := gitRepo(t)
	id := r.sessionIn(repo)

	hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\necho 'lint: 3 problems in a.txt' >&2\nexit 1\n"), 0o755)
	testkit.WriteFile(t, filepath.Join(repo, "a.txt"), "linted?\n")
	api.GitStage(ctx, id, "a.txt")
	_, err := api.GitCommit(ctx, id, "try")
	wantSaid(t, "a hook's refusal", err, 400, "pre-commit hook rejected")
	wantSaid(t, "a hook's words", err, 400, "lint: 3 problems in a.txt")
	if v, _ := api.GitStatus(ctx, id); fileOf(v, "a.txt") == nil || fileOf(v, "a.txt").Staged != "M" {
		t.Errorf("after the hook's refusal: %+v", v.Status)
	}
	os.Remove(hook)

	pitest.Git(t, repo, "checkout", "-q", "--detach")
	_, err = api.GitCommit(ctx, id, "on nothing")
	wantSaid(t, "detached HEAD", err, 400, "detached")
	pitest.Git(t, repo, "checkout", "-q", "main")

	pitest.Git(t, repo, "commit", "-qm", "main's a")
	pitest.Git(t, repo, "checkout", "-q", "-b", "other", "HEAD~1")
	testkit.WriteFile(t, filepath.Join(repo, "a.txt"), "other's a\n")
	pitest.Git(t, repo, "commit", "-qam", "other's a")
	pitest.Git(t, repo, "checkout", "-q", "main")
	mergeIn(repo, "other") // conflicts: exits 1
	v, _ := api.GitStatus(ctx, id)
	if v.Status == nil || v.Status.State != "merge" {
		t.Fatalf("state during a merge: %+v", v.Status)
	}
	_, err = api.GitCommit(ctx, id, "merged?")
	wantSaid(t, "merge in progress", err, 400, "merge is in progress")
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); !strings.Contains(string(b), "<<<<<<<") {
		t.Errorf("the conflicted file changed: %q", b)
	}

	unborn := t.TempDir()
	pitest.Git(t, unborn, "init", "-q")
	if log, err := api.GitCommits(ctx, r.sessionIn(unborn), 0); err != nil || len(log.Commits) != 0 {
		t.Errorf("log before the first commit: %+v, %v", log, err)
	}
}

// mergeIn starts a merge that is expected to stop on a conflict.
func mergeIn(dir, branch string) {
	cmd := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", branch)
	cmd.Dir = dir
	cmd.Run()
}
