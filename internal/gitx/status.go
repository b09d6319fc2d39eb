package gitx

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"piweb/internal/apitype"
)

// Status is a working tree's state as `git status` sees it (apitype.GitStatus,
// where the API's shapes are defined).
type Status = apitype.GitStatus

// File is one changed path (apitype.GitFile, where the API's shapes are
// defined).
type File = apitype.GitFile

// Status runs `git status --porcelain=v2 -z --branch` in dir.
func (g *Git) Status(ctx context.Context, dir string) (*Status, error) {
	root, gitDir, err := g.dirs(ctx, dir)
	if err != nil {
		return nil, err
	}
	gd, err := g.guardFor(ctx, root)
	if err != nil {
		return nil, err
	}
	args := append(gd.args, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=normal")
	out, _, err := g.run(ctx, root, 0, args)
	if err != nil {
		return nil, err
	}
	st, err := ParseStatus(out, g.opts.MaxFiles)
	if err != nil {
		return nil, err
	}
	st.Root, st.IgnoredConfig, st.State = root, gd.ignored, stateOf(gitDir)
	return st, nil
}

// dirs returns the top folder of the working tree holding dir and its git
// folder (a worktree's own, where git keeps a merge's or rebase's state).
func (g *Git) dirs(ctx context.Context, dir string) (root, gitDir string, err error) {
	out, _, err := g.run(ctx, dir, 0, []string{"rev-parse", "--show-toplevel", "--absolute-git-dir"})
	if err != nil {
		return "", "", err
	}
	root, gitDir, _ = strings.Cut(strings.TrimRight(string(out), "\n"), "\n")
	return root, gitDir, nil
}

// stateOf names the operation git has in progress in gitDir, by the files
// git keeps while it lasts: "merge", "rebase", "cherry-pick", "revert", or
// "" for none.
func stateOf(gitDir string) string {
	for _, s := range []struct{ file, state string }{{"MERGE_HEAD", "merge"}, {"rebase-merge", "rebase"},
		{"rebase-apply", "rebase"}, {"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"}} {
		if _, err := os.Stat(filepath.Join(gitDir, s.file)); err == nil {
			return s.state
		}
	}
	return ""
}

// ErrParse is ParseStatus's answer to output it cannot read.
var ErrParse = errors.New("gitx: unreadable git status output")

// ParseStatus reads `git status --porcelain=v2 -z --branch` output,
// keeping at most maxFiles files (all when maxFiles <= 0). Unknown header
// and record types are skipped, as the format asks of readers.
func ParseStatus(out []byte, maxFiles int) (*Status, error) {
	st := &Status{Files: []File{}}
	for len(out) > 0 {
		rec, rest, ok := cutNUL(out)
		if !ok {
			return nil, ErrParse
		}
		out = rest
		if len(rec) < 2 {
			continue
		}
		var f File
		var err error
		switch rec[0] {
		case '#':
			readHeader(st, string(rec))
			continue
		case '1':
			f, err = ordinary(rec, 9)
		case '2':
			f, err = ordinary(rec, 10)
			if err == nil {
				var orig []byte
				if orig, out, ok = cutNUL(out); !ok {
					return nil, ErrParse
				}
				f.OrigPath, f.Kind = string(orig), "renamed"
			}
		case 'u':
			f, err = ordinary(rec, 11)
			f.Kind = "unmerged"
		case '?':
			f = File{Path: string(rec[2:]), Staged: "?", Unstaged: "?", Kind: "untracked"}
		default:
			continue // '!' ignored files, and types a newer git may add
		}
		if err != nil {
			return nil, err
		}
		st.Total++
		if maxFiles <= 0 || len(st.Files) < maxFiles {
			st.Files = append(st.Files, f)
		}
	}
	return st, nil
}

// cutNUL splits off one NUL-terminated record.
func cutNUL(b []byte) (rec, rest []byte, ok bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// ordinary reads a record of n space-separated fields whose last is the
// path (which may itself hold spaces).
func ordinary(rec []byte, n int) (File, error) {
	parts := strings.SplitN(string(rec), " ", n)
	if len(parts) != n || len(parts[1]) != 2 || parts[n-1] == "" {
		return File{}, ErrParse
	}
	return File{Path: parts[n-1], Staged: parts[1][:1], Unstaged: parts[1][1:], Kind: "tracked"}, nil
}

func readHeader(st *Status, h string) {
	key, val, _ := strings.Cut(strings.TrimPrefix(h, "# "), " ")
	switch key {
	case "branch.oid":
		if val != "(initial)" {
			st.Head = val
		}
	case "branch.head":
		if val != "(detached)" {
			st.Branch = val
		}
	case "branch.upstream":
		st.Upstream = val
	case "branch.ab":
		a, b, _ := strings.Cut(val, " ")
		st.Ahead, _ = strconv.Atoi(strings.TrimPrefix(a, "+"))
		st.Behind, _ = strconv.Atoi(strings.TrimPrefix(b, "-"))
	}
}
