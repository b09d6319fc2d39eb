package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWorktrees: a worktree made on a new branch (at a path with a space
// and non-ASCII letters) is listed and shares its repository with the
// main one; removing it is refused while it has untracked files unless
// forced; the main worktree is never removed.
func TestWorktrees(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	ctx := context.Background()
	g := New(Options{})
	wt := filepath.Join(t.TempDir(), "feature ü")
	if err := g.AddWorktree(ctx, dir, wt, "feat/ü", ""); err != nil {
		t.Fatal(err)
	}
	list, err := g.Worktrees(ctx, wt)
	if err != nil || len(list) != 2 || !list[0].Main || list[1].Branch != "feat/ü" {
		t.Fatalf("worktrees: %+v, %v", list, err)
	}
	if real, _ := filepath.EvalSymlinks(wt); list[1].Path != real && list[1].Path != wt {
		t.Errorf("worktree path %q, want %q", list[1].Path, wt)
	}
	a, err1 := g.RepoOf(ctx, dir)
	b, err2 := g.RepoOf(ctx, wt)
	if err1 != nil || err2 != nil || a.Common != b.Common || b.Branch != "feat/ü" || a.Name != filepath.Base(dir) {
		t.Errorf("repos: %+v %v, %+v %v", a, err1, b, err2)
	}
	if _, err := g.RepoOf(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("RepoOf a plain folder: %v", err)
	}
	if err := g.AddWorktree(ctx, dir, filepath.Join(t.TempDir(), "x"), "-rf", ""); !errors.Is(err, ErrBadName) {
		t.Errorf("a branch like an option: %v", err)
	}
	os.WriteFile(filepath.Join(wt, "wip.txt"), []byte("unsaved work\n"), 0o644)
	if err := g.RemoveWorktree(ctx, dir, wt, false); !errors.Is(err, ErrDirty) {
		t.Fatalf("removing a dirty worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, "wip.txt")); err != nil {
		t.Fatal("the refused remove lost the work")
	}
	if err := g.RemoveWorktree(ctx, dir, wt, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("worktree folder after remove: %v", err)
	}
	if err := g.RemoveWorktree(ctx, dir, filepath.Join(dir, "not-a-worktree"), true); !errors.Is(err, ErrUnknown) {
		t.Errorf("removing a folder that is no worktree: %v, want ErrUnknown", err)
	}
	if err := g.RemoveWorktree(ctx, dir, dir, true); !errors.Is(err, ErrMain) {
		t.Errorf("removing the main worktree: %v", err)
	}
}

func TestParseWorktrees(t *testing.T) {
	got := ParseWorktrees([]byte("worktree /a\x00HEAD 1\x00branch refs/heads/main\x00\x00worktree /b c\x00HEAD 2\x00detached\x00locked why\x00prunable gone\x00\x00"))
	if len(got) != 2 || got[0] != (Worktree{Path: "/a", Head: "1", Branch: "main", Main: true}) ||
		got[1] != (Worktree{Path: "/b c", Head: "2", Locked: true, Prunable: true}) {
		t.Errorf("%+v", got)
	}
}

// TestRepoCacheMixed asks for cached and uncached folders in one call: the
// cached answers are written into the result while the lookups of the
// others run (a race -race caught in the sidebar's GET /api/repos).
func TestRepoCacheMixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := &RepoCache{Git: New(Options{}), TTL: time.Hour}
	var cached, fresh []string
	for range 3 {
		cached = append(cached, newRepo(t))
		fresh = append(fresh, newRepo(t))
	}
	if got := c.Repos(ctx, cached); len(got) != len(cached) {
		t.Fatalf("first ask: %d repositories, want %d", len(got), len(cached))
	}
	var mixed []string
	for i := range cached {
		mixed = append(mixed, fresh[i], cached[i])
	}
	if got := c.Repos(ctx, mixed); len(got) != len(mixed) {
		t.Errorf("mixed ask: %d repositories, want %d", len(got), len(mixed))
	}
}

// TestPathBeside: a new worktree's folder goes beside the main worktree,
// whichever folder of the repository asks (the main worktree, a folder in
// it, a linked worktree elsewhere); a folder outside any repository has
// none.
func TestPathBeside(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := New(Options{})
	dir := newRepo(t)
	main, _ := filepath.EvalSymlinks(dir)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	wt := filepath.Join(t.TempDir(), "linked")
	if err := g.AddWorktree(ctx, dir, wt, "linked", ""); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(main), "next")
	for _, from := range []string{dir, sub, wt} {
		got, err := g.PathBeside(ctx, from, "next")
		if err != nil || got != want {
			t.Errorf("PathBeside(%q) = %q, %v; want %q", from, got, err, want)
		}
	}
	if got, err := g.PathBeside(ctx, t.TempDir(), "next"); err == nil {
		t.Errorf("PathBeside of a plain folder = %q, want an error", got)
	}
}

// TestIsWorktree: the main and linked worktrees are the repository's, as
// git lists them; a folder inside one, another repository's worktree and
// a plain folder are not.
func TestIsWorktree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := New(Options{})
	dir := newRepo(t)
	wt := filepath.Join(t.TempDir(), "linked")
	if err := g.AddWorktree(ctx, dir, wt, "linked", ""); err != nil {
		t.Fatal(err)
	}
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, c := range []struct {
		from, path string
		want       bool
	}{
		{dir, real(dir), true},
		{dir, real(wt), true},
		{wt, real(dir), true},
		{dir, real(sub), false},
		{dir, real(newRepo(t)), false},
		{dir, t.TempDir(), false},
	} {
		got, err := g.IsWorktree(ctx, c.from, c.path)
		if err != nil || got != c.want {
			t.Errorf("IsWorktree(%q, %q) = %v, %v; want %v", c.from, c.path, got, err, c.want)
		}
	}
	if known, err := g.IsWorktree(ctx, t.TempDir(), dir); err == nil || known {
		t.Errorf("IsWorktree from a plain folder = %v, %v; want an error", known, err)
	}
}
