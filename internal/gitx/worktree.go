package gitx

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// Repo says which repository a folder belongs to (apitype.Repo, where the
// API's shapes are defined).
type Repo = apitype.Repo

// RepoOf answers the repository of dir.
func (g *Git) RepoOf(ctx context.Context, dir string) (*Repo, error) {
	out, _, err := g.run(ctx, dir, 0, []string{"rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel", "--abbrev-ref", "HEAD"}, 128)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 2 {
		return nil, ErrNotRepo
	}
	r := &Repo{Common: lines[0], Root: lines[1], Branch: "HEAD"}
	if len(lines) > 2 {
		r.Branch = lines[2]
	}
	r.Name = filepath.Base(strings.TrimSuffix(r.Common, string(filepath.Separator)+".git"))
	return r, nil
}

// Worktree is one working tree of a repository (apitype.Worktree, where the
// API's shapes are defined).
type Worktree = apitype.Worktree

// Worktrees lists the worktrees of dir's repository, the main one first.
func (g *Git) Worktrees(ctx context.Context, dir string) ([]Worktree, error) {
	out, _, err := g.run(ctx, dir, 0, []string{"worktree", "list", "--porcelain", "-z"})
	if err != nil {
		return nil, err
	}
	return ParseWorktrees(out), nil
}

// ParseWorktrees reads `git worktree list --porcelain -z`: attribute
// lines ended by NUL, each worktree ended by an empty one.
func ParseWorktrees(out []byte) []Worktree {
	list := []Worktree{}
	var cur *Worktree
	for _, line := range strings.Split(string(out), "\x00") {
		key, val, _ := strings.Cut(line, " ")
		switch {
		case line == "":
			cur = nil
		case key == "worktree":
			list = append(list, Worktree{Path: val, Main: len(list) == 0})
			cur = &list[len(list)-1]
		case cur == nil:
		case key == "HEAD":
			cur.Head = val
		case key == "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case key == "locked":
			cur.Locked = true
		case key == "prunable":
			cur.Prunable = true
		}
	}
	return list
}

// Errors of AddWorktree and RemoveWorktree.
var (
	ErrDirty   = errors.New("the worktree has uncommitted changes")
	ErrBadName = errs.New(errs.Invalid, "not a usable branch name", "not a usable branch or folder name")
	ErrMain    = errs.New(errs.Forbidden, "the main worktree cannot be removed", "the main worktree cannot be removed")
	ErrUnknown = errs.New(errs.NotFound, "no such worktree of this repository", "no such worktree of this repository")
)

// AddWorktree creates a worktree at path (a new folder) on a new branch
// made from base (default HEAD).
func (g *Git) AddWorktree(ctx context.Context, dir, path, branch, base string) error {
	if branch == "" || strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, " \x00~^:?*[\\") ||
		strings.HasPrefix(base, "-") || !filepath.IsAbs(path) {
		return ErrBadName
	}
	gd, err := g.guardFor(ctx, dir) // the checkout would run the repository's filters
	if err != nil {
		return err
	}
	args := append(gd.args, "worktree", "add", "-b", branch, "--", path)
	if base != "" {
		args = append(args, base)
	}
	_, _, err = g.run(ctx, dir, 0, args)
	return refused(err, "git refused: the branch or folder may exist already")
}

// refused words git's refusal of a worktree change the user asked for
// (git failed, for a reason only its own words tell) as errs.Invalid with
// msg: the user's to correct. A known state keeps its kind. Elsewhere an
// unknown git failure is errs.Internal ("git failed"): git could not
// report a state piweb asked about.
func refused(err error, msg string) error {
	if errors.Is(err, errGitFails) {
		return errs.E("gitx", errs.Invalid, msg, err)
	}
	return err
}

// RemoveWorktree removes the worktree at path, which must be one git
// lists for dir's repository (else ErrUnknown) other than the main one
// (ErrMain); one with modified or untracked files is refused (ErrDirty)
// unless force.
func (g *Git) RemoveWorktree(ctx context.Context, dir, path string, force bool) error {
	wts, err := g.Worktrees(ctx, dir)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(wts, func(wt Worktree) bool { return filepath.Clean(wt.Path) == filepath.Clean(path) })
	if i < 0 {
		return ErrUnknown
	} else if i == 0 {
		return ErrMain
	}
	gd, err := g.guardFor(ctx, dir) // its check for changes would run the repository's filters
	if err != nil {
		return err
	}
	args := append(gd.args, "worktree", "remove")
	if force {
		args = append(args, "--force")
	}
	_, _, err = g.run(ctx, dir, 0, append(args, "--", path))
	if err != nil && strings.Contains(err.Error(), "modified or untracked files") {
		return ErrDirty
	}
	return refused(err, "git refused: the branch or folder may exist already")
}

// errNoWorktrees is a repository git lists no worktree of.
var errNoWorktrees = errors.New("git listed no worktree")

// PathBeside is the path of folder beside the main worktree of dir's
// repository, where a new worktree goes.
func (g *Git) PathBeside(ctx context.Context, dir, folder string) (string, error) {
	wts, err := g.Worktrees(ctx, dir)
	if err == nil && len(wts) == 0 {
		err = errNoWorktrees
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(wts[0].Path), folder), nil
}

// IsWorktree says whether path is, as git lists it, one of the worktrees
// of dir's repository.
func (g *Git) IsWorktree(ctx context.Context, dir, path string) (bool, error) {
	wts, err := g.Worktrees(ctx, dir)
	known := false
	for _, wt := range wts {
		known = known || wt.Path == path
	}
	return known, err
}
