package gitx

import (
	"context"
	"errors"
	"slices"
	"strings"

	"piweb/internal/errs"
)

// Changes the user asks for in the Changes panel (stage, unstage, discard,
// commit) run git as the user's own terminal would: the repository's
// hooks and filters run (a commit's pre-commit hook, git-lfs's clean
// filter on a stage), since the user asked for exactly what they are
// part of (decision 0040). Only what would wait for a person is off: no
// prompt, no editor, no pager; and core.fsmonitor, a speed-up piweb's
// short-lived commands have no use for.
var askedOff = []string{"-c", "core.fsmonitor=false", "-c", "core.pager=cat"}

// MaxPaths bounds the paths one stage, unstage or discard names.
const MaxPaths = 1000

// Errors of the changes the user asks for.
var (
	ErrNoPaths    = errs.New(errs.Invalid, "name at least one file", "no paths")
	ErrManyPaths  = errs.New(errs.TooLarge, "too many files at once (at most 1000)", "too many paths")
	ErrNoChange   = errs.New(errs.NotFound, "that file has no change to discard (reload the panel)", "no such change")
	ErrUntracked  = errs.New(errs.Invalid, "an untracked file is deleted for good when discarded: confirm it first", "untracked needs confirming")
	errGitRefused = errors.New("git refused")
)

// asked runs git in root for a change the user asked for and returns
// what git and its hooks printed (standard error, then output); a failure
// is errs.Invalid worded by git (the user's to correct), known states
// keep their kinds.
func (g *Git) asked(ctx context.Context, root string, args ...string) (string, error) {
	out, stderr, _, err := g.runFull(ctx, root, 64<<10, append(slices.Clone(askedOff), args...))
	said := strings.TrimSpace(stderr + "\n" + string(out))
	if errors.Is(err, errGitFails) {
		return said, errs.E("gitx", errs.Invalid, "git refused: "+said, errGitRefused)
	}
	return said, err
}

// specs checks each path (relative to the working tree's top) and makes
// it a literal pathspec, so that "*" or ":" in a name mean themselves.
func specs(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, ErrNoPaths
	} else if len(paths) > MaxPaths {
		return nil, ErrManyPaths
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		c, err := CleanPath(p)
		if err != nil {
			return nil, err
		}
		out = append(out, ":(literal)"+c)
	}
	return out, nil
}

// Stage adds the files at paths to the index as they are in the working
// tree (a deleted file's deletion too).
func (g *Git) Stage(ctx context.Context, root string, paths []string) error {
	return g.onPaths(ctx, root, paths, "add", "-A")
}

// Unstage puts the index entries of paths back as HEAD has them (or
// removes them before the first commit); the working tree is untouched.
func (g *Git) Unstage(ctx context.Context, root string, paths []string) error {
	return g.onPaths(ctx, root, paths, "reset", "-q")
}

// onPaths runs the git command cmd the user asked for on paths, checked
// and made literal pathspecs by specs.
func (g *Git) onPaths(ctx context.Context, root string, paths []string, cmd ...string) error {
	ps, err := specs(paths)
	if err != nil {
		return err
	}
	_, err = g.asked(ctx, root, append(append(cmd, "--"), ps...)...)
	return err
}

// Discard throws away the unstaged changes of paths (each file is made as
// the index has it) and deletes untracked ones, but only when untracked
// says the user confirmed that (ErrUntracked otherwise, before anything
// is touched). A path without a change is ErrNoChange.
func (g *Git) Discard(ctx context.Context, root string, paths []string, untracked bool) error {
	if _, err := specs(paths); err != nil {
		return err
	}
	st, err := g.Status(ctx, root)
	if err != nil {
		return err
	}
	tracked, loose, err := splitChanges(st, paths)
	if err != nil {
		return err
	}
	if len(loose) > 0 && !untracked {
		return ErrUntracked
	}
	if len(tracked) > 0 {
		if _, err := g.asked(ctx, root, append([]string{"checkout", "--"}, tracked...)...); err != nil {
			return err
		}
	}
	if len(loose) > 0 {
		_, err = g.asked(ctx, root, append([]string{"clean", "-f", "-d", "-q", "--"}, loose...)...)
	}
	return err
}

// splitChanges sorts paths into the pathspecs of tracked files with
// unstaged changes and those of untracked files or folders, as st lists
// them.
func splitChanges(st *Status, paths []string) (tracked, loose []string, err error) {
	for _, p := range paths {
		c, _ := CleanPath(p)
		i := slices.IndexFunc(st.Files, func(f File) bool { return strings.TrimSuffix(f.Path, "/") == c })
		switch {
		case i < 0:
			return nil, nil, ErrNoChange
		case st.Files[i].Kind == "untracked":
			loose = append(loose, ":(literal)"+st.Files[i].Path)
		case st.Files[i].Unstaged == ".":
			return nil, nil, ErrNoChange
		default:
			tracked = append(tracked, ":(literal)"+c)
		}
	}
	return tracked, loose, nil
}

// ListFiles lists the files of dir's working tree under dir as
// `git ls-files --cached --others --exclude-standard` does (tracked and
// untracked files, .gitignore respected), paths relative to dir, reading
// at most limit bytes of git's answer (cut: the list is partial).
// unreadable says git could not read some folders (their files are
// missing).
func (g *Git) ListFiles(ctx context.Context, dir string, limit int) (paths []string, cut, unreadable bool, err error) {
	args := append(slices.Clone(alwaysOff), "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	out, stderr, cut, err := g.runFull(ctx, dir, limit, args)
	if err != nil {
		return nil, false, false, err
	}
	list := strings.Split(string(out), "\x00")
	list = list[:len(list)-1] // after the last NUL: "", or a path cut short
	return slices.Compact(list), cut, strings.Contains(stderr, "could not open directory"), nil
}
