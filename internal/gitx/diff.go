package gitx

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"piweb/internal/apitype"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
)

// emptyTree is git's id of the empty tree: what HEAD is before the first
// commit.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Diff is one file's unified diff (apitype.GitDiff, where the API's shapes are
// defined).
type Diff = apitype.GitDiff

// Which diffs a file shows.
const (
	AgainstHead = "head"     // the working tree against HEAD (staged and unstaged)
	Staged      = "staged"   // the index against HEAD
	Unstaged    = "unstaged" // the working tree against the index
	Untracked   = "untracked"
)

// CleanPath checks a path relative to the working tree's root (as Status
// gives them): no NUL, not absolute, no "..".
func CleanPath(p string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) || strings.HasPrefix(p, "/") {
		return "", ErrBadPath
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return "", ErrBadPath
	}
	return c, nil
}

// FileDiff returns the diff of file (relative to root, the working tree's
// top folder) of the given kind.
func (g *Git) FileDiff(ctx context.Context, root, file, which string) (*Diff, error) {
	p, err := CleanPath(file)
	if err != nil {
		return nil, err
	}
	if err := inside(root, p, which); err != nil {
		return nil, err
	}
	gd, err := g.guardFor(ctx, root)
	if err != nil {
		return nil, err
	}
	spec := ":(literal)" + p
	base := slices.Concat(gd.args, []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv"})
	var args []string
	switch which {
	case Untracked:
		args = append(base, "--no-index", "--", "/dev/null", p)
	case Staged:
		args = append(base, "--cached", "--", spec)
	case Unstaged:
		args = append(base, "--", spec)
	default:
		args = append(base, "HEAD", "--", spec)
	}
	out, cut, err := g.run(ctx, root, g.opts.MaxDiff, args, 1) // --no-index exits 1 on a difference
	if err != nil && which != Untracked && which != Unstaged && errors.Is(err, errGitFails) {
		// No HEAD yet: compare with the empty tree.
		args[len(args)-3] = emptyTree
		if which == Staged {
			args = append(base, "--cached", emptyTree, "--", spec)
		}
		out, cut, err = g.run(ctx, root, g.opts.MaxDiff, args, 1)
	}
	if err != nil {
		return nil, err
	}
	text := string(out)
	return &Diff{Path: p, Text: text, Truncated: cut, Binary: isBinaryDiff(text)}, nil
}

// inside checks p's folder as the files panel resolves a path
// (cwdfs.Resolve: symlinks followed, and refused when they lead out of
// root): git diff --no-index reads an untracked path through a symlinked
// folder wherever it leads. The file itself may be a symlink (git shows
// its target's name, not what it points to), and a folder that is gone
// passes for a tracked diff (a deleted file's) but not for an untracked
// file.
func inside(root, p, which string) error {
	dir := path.Dir(p)
	if dir == "." {
		return nil
	}
	_, _, err := cwdfs.Resolve(root, dir)
	if err == nil || which != Untracked && errs.Is(err, errs.NotFound) {
		return nil
	}
	return err
}

func isBinaryDiff(text string) bool {
	head := text[:min(len(text), 2048)]
	return strings.Contains(head, "\nBinary files ") || strings.HasPrefix(head, "Binary files ")
}
