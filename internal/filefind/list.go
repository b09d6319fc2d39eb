package filefind

import (
	"context"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"
)

// List is one folder's paths: files, and folders ending in "/".
type List struct {
	paths []string
	lower []string        // paths in lower case, for matching
	dirs  map[string]bool // the folders' lower-case paths
	// Files counts the files listed; Partial says some are missing, and
	// Reason why.
	Files   int
	Partial bool
	Reason  string
}

// Reasons a list is partial.
const (
	reasonMany       = "the folder has more files than completion lists"
	reasonSlow       = "listing the folder took too long"
	reasonUnreadable = "some folders could not be read"
)

// load lists root: git's list in a repository, else (or when git fails)
// a walk.
func (f *Finder) load(root string) *List {
	ctx, cancel := context.WithTimeout(context.Background(), f.opts.Budget)
	defer cancel()
	files, cut, unreadable, err := f.opts.Git.ListFiles(ctx, root, f.opts.MaxPaths*128)
	if err != nil {
		files, cut, unreadable = Walk(ctx, os.DirFS(root), f.opts.MaxPaths)
	}
	reason := ""
	switch {
	case cut || len(files) > f.opts.MaxPaths:
		files, reason = files[:min(len(files), f.opts.MaxPaths)], reasonMany
	case ctx.Err() != nil:
		reason = reasonSlow
	case unreadable:
		reason = reasonUnreadable
	}
	return NewList(files, reason)
}

// NewList is the list of files (relative, slash-separated; a folder's
// ending in "/") and the folders holding them, partial for reason unless
// it is "".
func NewList(files []string, reason string) *List {
	l := &List{Partial: reason != "", Reason: reason}
	dirs := map[string]bool{}
	l.paths = make([]string, 0, len(files)+len(files)/8)
	for _, p := range files {
		if d, isDir := strings.CutSuffix(p, "/"); isDir {
			if !dirs[d] {
				dirs[d] = true
				l.paths = append(l.paths, p)
			}
			continue
		}
		l.Files++
		l.paths = append(l.paths, p)
		for d := path.Dir(p); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			l.paths = append(l.paths, d+"/")
		}
	}
	l.lower = make([]string, len(l.paths))
	l.dirs = make(map[string]bool, len(dirs))
	for i, p := range l.paths {
		l.lower[i] = strings.ToLower(p)
		if strings.HasSuffix(p, "/") {
			l.dirs[l.lower[i]] = true
		}
	}
	return l
}

// Walk lists the files and folders (ending in "/") under fsys's root
// (symlinks are not followed, .git folders are skipped), at most max
// (cut: there were more) until ctx ends; unreadable says some folders
// could not be read.
func Walk(ctx context.Context, fsys fs.FS, max int) (files []string, cut, unreadable bool) {
	deadline, _ := ctx.Deadline()
	n := 0
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			unreadable = true
			return skip(d)
		}
		if n++; n%1024 == 0 && !deadline.IsZero() && time.Now().After(deadline) {
			return fs.SkipAll
		}
		switch {
		case p == ".":
		case d.IsDir() && d.Name() == ".git":
			return fs.SkipDir
		case len(files) == max:
			cut = true
			return fs.SkipAll
		case d.IsDir():
			files = append(files, p+"/")
		default:
			files = append(files, p)
		}
		return nil
	})
	return files, cut, unreadable
}

// skip is what WalkDir's callback answers for an entry it could not read.
func skip(d fs.DirEntry) error {
	if d != nil && d.IsDir() {
		return fs.SkipDir
	}
	return nil
}
