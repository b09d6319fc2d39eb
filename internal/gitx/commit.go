package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// Commit is one commit of a log (apitype.GitCommit, where the API's
// shapes are defined).
type Commit = apitype.GitCommit

// MaxMessage bounds a commit message's bytes.
const MaxMessage = 64 << 10

// Refusals of a commit, each said in words; nothing is changed by them.
var (
	ErrNoMessage   = errs.New(errs.Invalid, "write a commit message first", "empty message")
	ErrLongMessage = errs.New(errs.TooLarge, "the commit message is over 64 KiB", "message too long")
	ErrNothing     = errs.New(errs.Invalid, "nothing is staged: stage the changes to commit first", "nothing staged")
	ErrDetached    = errs.New(errs.Invalid, "HEAD is detached (no branch is checked out): a commit here would be on no branch; check out a branch first", "detached HEAD")
	ErrUnmerged    = errs.New(errs.Invalid, "some files are unmerged (conflicts): resolve and stage them first", "unmerged files")
	ErrNoIdentity  = errs.New(errs.Invalid, "git does not know who you are: set user.name and user.email (git config --global user.name \"Your Name\")", "no identity")
)

// errInProgress words an operation git has in progress.
func errInProgress(state string) error {
	return errs.Errorf(errs.Invalid, "a %s is in progress: finish or abort it in a terminal (git %s --continue or --abort); "+
		"piweb commits only outside one", state, state)
}

// CommitStaged commits what is staged in root's working tree with
// message, running the repository's hooks as git does; a hook's refusal
// says what the hook printed. It refuses, before running git, an empty
// index, a detached HEAD, unmerged files and a merge, rebase, cherry-pick
// or revert in progress. It returns the new commit.
func (g *Git) CommitStaged(ctx context.Context, root, message string) (*Commit, error) {
	if strings.TrimSpace(message) == "" || strings.ContainsRune(message, 0) {
		return nil, ErrNoMessage
	} else if len(message) > MaxMessage {
		return nil, ErrLongMessage
	}
	st, err := g.Status(ctx, root)
	if err != nil {
		return nil, err
	}
	if err := committable(st); err != nil {
		return nil, err
	}
	said, err := g.asked(ctx, st.Root, "commit", "-q", "-m", message)
	if err != nil {
		return nil, g.commitRefused(ctx, st.Root, said, err)
	}
	log, err := g.Log(ctx, st.Root, 1)
	if err != nil || len(log) == 0 {
		return nil, errors.Join(errGitFails, err)
	}
	return &log[0], nil
}

// committable refuses a commit that would fail or lose track of work.
func committable(st *Status) error {
	switch {
	case st.State != "":
		return errInProgress(st.State)
	case st.Branch == "" && st.Head != "":
		return ErrDetached
	case slices.ContainsFunc(st.Files, func(f File) bool { return f.Kind == "unmerged" }):
		return ErrUnmerged
	case !slices.ContainsFunc(st.Files, func(f File) bool { return f.Staged != "." && f.Staged != "?" }):
		return ErrNothing
	}
	return nil
}

// commitRefused words git's refusal of a commit: no identity, or a hook
// that said no (with what it printed).
func (g *Git) commitRefused(ctx context.Context, root, said string, err error) error {
	if !errors.Is(err, errGitRefused) {
		return err
	}
	if strings.Contains(said, "Please tell me who you are") || strings.Contains(said, "empty ident") {
		return ErrNoIdentity
	}
	if hook := g.hookThatRan(ctx, root); hook != "" {
		if said == "" {
			said = "(it printed nothing)"
		}
		return errs.E("gitx.Commit", errs.Invalid, "The repository's "+hook+" hook rejected the commit; nothing was committed and "+
			"your changes are still staged. The hook said:\n"+said, err)
	}
	return err
}

// hookThatRan names the first of the commit's hooks present (executable)
// in the repository's hooks folder, "" when there is none.
func (g *Git) hookThatRan(ctx context.Context, root string) string {
	args := append(slices.Clone(askedOff), "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	out, _, _, err := g.runFull(ctx, root, 0, args)
	if err != nil {
		return ""
	}
	dir := strings.TrimRight(string(out), "\n")
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg"} {
		if fi, err := os.Stat(filepath.Join(dir, h)); err == nil && fi.Mode()&0o111 != 0 {
			return h
		}
	}
	return ""
}

// Log lists the last n commits of HEAD, newest first; none before the
// first commit.
func (g *Git) Log(ctx context.Context, dir string, n int) ([]Commit, error) {
	out, _, err := g.run(ctx, dir, 1<<20, []string{"log", "-n", strconv.Itoa(n), "--no-color",
		"--format=%H%x1f%h%x1f%an%x1f%aI%x1f%s%x1e"}, 128)
	if err != nil {
		return nil, err
	}
	return ParseLog(out), nil
}

// ParseLog reads Log's format: fields split by US, records ended by RS.
func ParseLog(out []byte) []Commit {
	list := []Commit{}
	for _, rec := range strings.Split(string(out), "\x1e") {
		f := strings.Split(strings.TrimLeft(rec, "\n"), "\x1f")
		if len(f) != 5 {
			continue
		}
		when, _ := time.Parse(time.RFC3339, f[3])
		list = append(list, Commit{Hash: f[0], Short: f[1], Author: f[2], Date: when, Subject: f[4]})
	}
	return list
}
