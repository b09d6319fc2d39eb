package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/errs"
	"piweb/internal/testkit"
)

// TestRepoConfigRunsNothing: a repository whose own config names
// commands (an fsmonitor hook, a clean filter for every file, hooks, an
// external diff) is looked at, status and every kind of diff, and none
// of them runs; the status lists the keys that were ignored.
func TestRepoConfigRunsNothing(t *testing.T) {
	dir := newRepo(t)
	marks := t.TempDir()
	script := func(name string) string {
		p := filepath.Join(marks, name+".sh")
		testkit.WriteFile(t, filepath.Join(marks, name+".sh"), "#!/bin/sh\ntouch '"+filepath.Join(marks, name)+"'\ncat\n")
		os.Chmod(p, 0o755)
		return p
	}
	sh(t, dir, "config", "core.fsmonitor", script("fsmonitor"))
	sh(t, dir, "config", "filter.evil.clean", script("clean"))
	sh(t, dir, "config", "filter.evil.required", "true")
	sh(t, dir, "config", "diff.external", script("external"))
	sh(t, dir, "config", "core.hooksPath", marks)
	testkit.WriteFile(t, filepath.Join(dir, ".git/info/attributes"), "* filter=evil\n")
	testkit.WriteFile(t, filepath.Join(dir, "a.txt"), "one\nTWO\n") // same size: git must read it
	testkit.WriteFile(t, filepath.Join(dir, "new.txt"), "new\n")

	g := New(Options{})
	ctx := context.Background()
	st, err := g.Status(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, which := range []string{AgainstHead, Staged, Unstaged} {
		if _, err := g.FileDiff(ctx, st.Root, "a.txt", which); err != nil {
			t.Errorf("diff %s: %v", which, err)
		}
	}
	if _, err := g.FileDiff(ctx, st.Root, "new.txt", Untracked); err != nil {
		t.Errorf("diff untracked: %v", err)
	}
	ents, _ := os.ReadDir(marks)
	var ran []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".sh") {
			ran = append(ran, e.Name())
		}
	}
	if len(ran) > 0 {
		t.Errorf("the repository's commands ran: %v", ran)
	}
	want := []string{"core.fsmonitor", "core.hookspath", "diff.external", "filter.evil.clean"}
	if diff := cmp.Diff(want, st.IgnoredConfig); diff != "" {
		t.Errorf("IgnoredConfig (-want +got):\n%s", diff)
	}
	if len(st.Files) == 0 {
		t.Error("status lists no change")
	}
}

// TestDiffStaysInRepo: an untracked path through a symlinked folder that
// leads out of the repository is refused as the files panel refuses it;
// a symlink itself is shown as the link it is, and a deleted file's diff
// still works though its folder is gone.
func TestDiffStaysInRepo(t *testing.T) {
	dir := newRepo(t)
	outside := t.TempDir()
	testkit.WriteFile(t, filepath.Join(outside, "secret.txt"), "s3cret\n")
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "lnk"))
	testkit.WriteFile(t, filepath.Join(dir, "sub/gone.txt"), "gone\n")
	sh(t, dir, "add", "sub")
	sh(t, dir, "commit", "-qm", "sub")
	os.RemoveAll(filepath.Join(dir, "sub"))

	g := New(Options{})
	ctx := context.Background()
	d, err := g.FileDiff(ctx, dir, "out/secret.txt", Untracked)
	if !errs.Is(err, errs.Forbidden) {
		t.Errorf("untracked diff through a symlinked folder: %v, %+v; want refused", err, d)
	}
	if d, err := g.FileDiff(ctx, dir, "lnk", Untracked); err != nil || strings.Contains(d.Text, "s3cret") {
		t.Errorf("untracked symlink: %v, %+v; want the link's target name only", err, d)
	}
	if d, err := g.FileDiff(ctx, dir, "sub/gone.txt", AgainstHead); err != nil || !strings.Contains(d.Text, "-gone") {
		t.Errorf("deleted file in a deleted folder: %v, %+v", err, d)
	}
}

func TestParseGuard(t *testing.T) {
	out := "system\x00core.pager\nless\x00global\x00core.fsmonitor\ntrue\x00local\x00core.fsmonitor\nfalse\x00" +
		"local\x00filter.a.b.smudge\nx\x00local\x00filter.a.b.clean\ny\x00worktree\x00pager.log\nz\x00local\x00core.bare\x00"
	gd := parseGuard([]byte(out))
	want := guard{
		args:    []string{"-c", "filter.a.b.clean=", "-c", "filter.a.b.smudge=", "-c", "filter.a.b.process=", "-c", "filter.a.b.required=false"},
		ignored: []string{"filter.a.b.clean", "filter.a.b.smudge", "pager.log"},
	}
	if diff := cmp.Diff(want, gd, cmp.AllowUnexported(guard{})); diff != "" {
		t.Errorf("parseGuard (-want +got):\n%s", diff)
	}
	// -c splits at the first "=": such a filter could not be emptied.
	if gd := parseGuard([]byte("local\x00filter.a=b.clean\nx\x00")); !gd.unsafe {
		t.Errorf("a filter named with = is not refused: %+v", gd)
	}
}
