// Package cwdfs reads the files of a session's working directory for the
// files panel: client paths resolved inside the cwd (symlinks included,
// opened through os.Root so a swapped symlink cannot escape), directories
// listed, only regular files and directories opened (never a FIFO or a
// device), and the stamps a poll compares. Its refusals are *errs.Error,
// whose message is safe to show to the client.
package cwdfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// Limits of the files panel.
const (
	MaxFileRead   = 10 << 20
	MaxDirEntries = 5000
)

// fail is a refusal of kind k whose message is shown to the client as is.
func fail(k errs.Kind, format string, args ...any) *errs.Error {
	return &errs.Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Entry is one item of a directory listing (apitype.FileEntry, where the API's
// shapes are defined).
type Entry = apitype.FileEntry

// Resolve maps a client path (relative, slash-separated) to a real path
// inside the session's cwd. The cwd and the target are both resolved
// through symlinks, so a link pointing outside is refused like "..".
func Resolve(cwd, rel string) (root, real string, err error) {
	if strings.ContainsRune(rel, 0) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || filepath.IsAbs(rel) {
		return "", "", fail(errs.Forbidden, "path must be relative to the session's directory")
	}
	for _, seg := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return "", "", fail(errs.Forbidden, "path must stay inside the session's directory")
		}
	}
	root, err = cwdRoot(cwd)
	if err != nil {
		return "", "", err
	}
	real, err = filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fail(errs.NotFound, "file not found")
	} else if err != nil {
		return "", "", fail(errs.Forbidden, "path cannot be resolved")
	}
	if !inside(root, real) {
		return "", "", fail(errs.Forbidden, "path leads outside the session's directory")
	}
	return root, real, nil
}

// inside reports whether real is root or under it (root may be "/").
func inside(root, real string) bool {
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return real == root || strings.HasPrefix(real, prefix)
}

// ErrCwdGone is Resolve's answer when the session's cwd is not there (the
// project was moved or deleted since, or the header has no absolute cwd).
var ErrCwdGone error = fail(errs.NotFound, "the session's directory does not exist")

// cwdRoot resolves the session's cwd through symlinks.
func cwdRoot(cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", ErrCwdGone
	}
	root, err := filepath.EvalSymlinks(cwd)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", ErrCwdGone
	} else if err != nil {
		return "", fail(errs.NotFound, "the session's directory cannot be read")
	}
	return root, nil
}

// OpenInside opens real (already checked by Resolve) through os.Root, so a
// symlink swapped in after the check still cannot escape. Only a directory
// or a regular file is opened: the type is checked before opening (opening
// a FIFO blocks until a writer comes, a device may never end), the open is
// non-blocking, and the opened file must be the one checked. The caller
// closes both the file and the root.
func OpenInside(root, real string) (*os.Root, *os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, fail(errs.NotFound, "the session's directory does not exist")
	}
	f, err := openChecked(r, root, real)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return r, f, nil
}

func openChecked(r *os.Root, root, real string) (*os.File, error) {
	rel, err := filepath.Rel(root, real)
	if err != nil {
		return nil, fail(errs.Forbidden, "path leads outside the session's directory")
	}
	before, err := r.Stat(rel)
	if err != nil {
		return nil, openErr(err)
	}
	if !before.IsDir() && !before.Mode().IsRegular() {
		return nil, fail(errs.Invalid, "not a regular file or directory (%s)", fileKind(before.Mode()))
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, openErr(err)
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fail(errs.Stale, "the file changed while it was opened")
	}
	return f, nil
}

func openErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fail(errs.NotFound, "file not found")
	}
	return fail(errs.Forbidden, "path leads outside the session's directory")
}

// fileKind names a special file's type for an error message.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// ReadDir lists a directory. Each entry is described through the root, so
// a symlink that points outside the cwd shows as "other" without the size
// or time of what it points to.
func ReadDir(root, real string) ([]Entry, error) {
	r, f, err := OpenInside(root, real)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	defer f.Close()
	ds, err := f.ReadDir(MaxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fail(errs.Invalid, "not a directory")
	}
	if len(ds) > MaxDirEntries {
		return nil, fail(errs.TooLarge, "directory has more than %d entries", MaxDirEntries)
	}
	rel, _ := filepath.Rel(root, real)
	out := make([]Entry, 0, len(ds))
	for _, d := range ds {
		e := Entry{Name: d.Name(), Type: "other"}
		if fi, err := r.Stat(filepath.Join(rel, d.Name())); err == nil { // through symlinks inside
			switch {
			case fi.IsDir():
				e.Type = "dir"
			case fi.Mode().IsRegular():
				e.Type, e.Size = "file", fi.Size()
			}
			mod := time.UnixMilli(fi.ModTime().UnixMilli()).UTC().Format("2006-01-02T15:04:05.000Z") // as toISOString
			e.Modified = &mod
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Type == "dir") != (out[j].Type == "dir") {
			return out[i].Type == "dir"
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// IsText guesses text as the absence of NUL bytes in the first 8 KiB.
func IsText(b []byte) bool {
	if len(b) > 8192 {
		b = b[:8192]
	}
	for _, c := range b {
		if c == 0 {
			return false
		}
	}
	return true
}

// Stamp is what a poll compares of a file: its size and mtime.
type Stamp struct {
	size  int64
	mtime time.Time
}

// Snapshot stamps a file ("" key) or a directory's direct children.
func Snapshot(real string) map[string]Stamp {
	out := map[string]Stamp{}
	fi, err := os.Stat(real)
	if err != nil {
		return out
	}
	if !fi.IsDir() {
		out[""] = Stamp{fi.Size(), fi.ModTime()}
		return out
	}
	ds, _ := os.ReadDir(real)
	for i, d := range ds {
		if i >= MaxDirEntries {
			break
		}
		if info, err := d.Info(); err == nil {
			out[d.Name()] = Stamp{info.Size(), info.ModTime()}
		}
	}
	return out
}

// Changes lists the names whose stamp differs between two snapshots:
// added, changed and removed, in no particular order.
func Changes(was, now map[string]Stamp) []string {
	var out []string
	for name, st := range now {
		if was[name] != st {
			out = append(out, name)
		}
	}
	for name := range was {
		if _, found := now[name]; !found {
			out = append(out, name)
		}
	}
	return out
}
