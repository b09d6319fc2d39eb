package server

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of the files panel.
const (
	maxFileRead   = 10 << 20
	maxDirEntries = 5000
)

// filesPoll is how often a files/events stream looks for changes.
var filesPoll = time.Second

// resolve maps a client path (relative, slash-separated) to a real path
// inside the session's cwd. The cwd and the target are both resolved
// through symlinks, so a link pointing outside is refused like "..".
func resolve(cwd, rel string) (root, real string, err error) {
	if strings.ContainsRune(rel, 0) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || filepath.IsAbs(rel) {
		return "", "", errorf(Forbidden, "path must be relative to the session's directory")
	}
	for _, seg := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return "", "", errorf(Forbidden, "path must stay inside the session's directory")
		}
	}
	root, err = cwdRoot(cwd)
	if err != nil {
		return "", "", err
	}
	real, err = filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", errorf(NotFound, "file not found")
	} else if err != nil {
		return "", "", errorf(Forbidden, "path cannot be resolved")
	}
	if !inside(root, real) {
		return "", "", errorf(Forbidden, "path leads outside the session's directory")
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

// errCwdGone is resolve's answer when the session's cwd is not there (the
// project was moved or deleted since, or the header has no absolute cwd).
var errCwdGone = errorf(NotFound, "the session's directory does not exist")

// cwdRoot resolves the session's cwd through symlinks.
func cwdRoot(cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", errCwdGone
	}
	root, err := filepath.EvalSymlinks(cwd)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", errCwdGone
	} else if err != nil {
		return "", errorf(NotFound, "the session's directory cannot be read")
	}
	return root, nil
}

// openInside opens real (already checked by resolve) through os.Root, so a
// symlink swapped in after the check still cannot escape. Only a directory
// or a regular file is opened: the type is checked before opening (opening
// a FIFO blocks until a writer comes, a device may never end), the open is
// non-blocking, and the opened file must be the one checked. The caller
// closes both the file and the root.
func openInside(root, real string) (*os.Root, *os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, errorf(NotFound, "the session's directory does not exist")
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
		return nil, errorf(Forbidden, "path leads outside the session's directory")
	}
	before, err := r.Stat(rel)
	if err != nil {
		return nil, openErr(err)
	}
	if !before.IsDir() && !before.Mode().IsRegular() {
		return nil, errorf(Invalid, "not a regular file or directory (%s)", fileKind(before.Mode()))
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, openErr(err)
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, errorf(Stale, "the file changed while it was opened")
	}
	return f, nil
}

func openErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errorf(NotFound, "file not found")
	}
	return errorf(Forbidden, "path leads outside the session's directory")
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

type fileEntry struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Size     int64   `json:"size"`
	Modified *string `json:"modified"`
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) error {
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	rel := r.URL.Query().Get("path")
	clean := path.Clean("/" + filepath.ToSlash(rel))[1:]
	root, real, err := resolve(m.Cwd, rel)
	if err == errCwdGone && clean == "" {
		// A session outlives its project folder; saying so is an answer,
		// not an error (a 404 would be logged in the browser's console).
		return ok(w, map[string]any{"path": "", "entries": []fileEntry{}, "missing": true})
	} else if err != nil {
		return err
	}
	entries, err := readDir(root, real)
	if err != nil {
		return err
	}
	return ok(w, map[string]any{"path": clean, "entries": entries, "missing": false})
}

// readDir lists a directory. Each entry is described through the root, so
// a symlink that points outside the cwd shows as "other" without the size
// or time of what it points to.
func readDir(root, real string) ([]fileEntry, error) {
	r, f, err := openInside(root, real)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	defer f.Close()
	ds, err := f.ReadDir(maxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, errorf(Invalid, "not a directory")
	}
	if len(ds) > maxDirEntries {
		return nil, errorf(TooLarge, "directory has more than %d entries", maxDirEntries)
	}
	rel, _ := filepath.Rel(root, real)
	out := make([]fileEntry, 0, len(ds))
	for _, d := range ds {
		e := fileEntry{Name: d.Name(), Type: "other"}
		if fi, err := r.Stat(filepath.Join(rel, d.Name())); err == nil { // through symlinks inside
			switch {
			case fi.IsDir():
				e.Type = "dir"
			case fi.Mode().IsRegular():
				e.Type, e.Size = "file", fi.Size()
			}
			e.Modified = isoTime(float64(fi.ModTime().UnixMilli()))
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

var imageTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".svg": "image/svg+xml"}

func (s *Server) readFile(w http.ResponseWriter, r *http.Request) error {
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	root, real, err := resolve(m.Cwd, r.URL.Query().Get("path"))
	if err != nil {
		return err
	}
	rt, f, err := openInside(root, real)
	if err != nil {
		return err
	}
	defer rt.Close()
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return errorf(Invalid, "not a regular file")
	}
	if fi.Size() > maxFileRead {
		return errorf(TooLarge, "file is over %d bytes", maxFileRead)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileRead+1))
	if err != nil {
		return wrap(Internal, err, "cannot read file")
	}
	ctype := imageTypes[strings.ToLower(filepath.Ext(real))]
	if ctype == "" {
		ctype = "application/octet-stream"
		if isText(data) {
			ctype = "text/plain; charset=utf-8"
		}
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'")
	h.Set("Cache-Control", "no-store")
	w.Write(data)
	return nil
}

// isText guesses text as the absence of NUL bytes in the first 8 KiB.
func isText(b []byte) bool {
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

// fileEvents streams file_changed events of a file or directory (the
// single-topic form of the topic f/<id>/<path> of /api/stream).
func (s *Server) fileEvents(w http.ResponseWriter, r *http.Request) error {
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	root, real, err := resolve(m.Cwd, r.URL.Query().Get("path"))
	if err != nil {
		return err
	}
	rel := path.Clean("/" + filepath.ToSlash(r.URL.Query().Get("path")))[1:]
	topic := filesTopic(m.Key, rel)
	return s.serveSSEFrom(w, r, topic, func() []byte {
		s.pollers.ensure(s, topic, root, real, rel)
		return []byte(`{"type":"hello"}`)
	}, false)
}

// pollers runs one poller per followed folder or file, however many
// clients follow it; a poller ends at its first tick without subscribers.
type pollers struct {
	mu      sync.Mutex
	running map[string]bool
}

// ensure starts the topic's poller unless it runs. Callers subscribe
// first, so a poller never ends between their subscription and this call,
// and the poller's first snapshot is taken after they subscribed.
func (p *pollers) ensure(s *Server, topic, root, real, rel string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running[topic] {
		return
	}
	if p.running == nil {
		p.running = map[string]bool{}
	}
	p.running[topic] = true
	s.bg.Go(func() { s.pollFiles(topic, root, real, rel) })
}

// idle ends the topic's poller when nobody follows it any more.
func (p *pollers) idle(s *Server, topic string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.events.Subscribers(topic) > 0 {
		return false
	}
	delete(p.running, topic)
	s.events.Drop(topic)
	return true
}

func (s *Server) pollFiles(topic, root, real, rel string) {
	snap := snapshot(root, real)
	t := time.NewTicker(filesPoll)
	defer t.Stop()
	for {
		select {
		case <-s.shutdown:
			return
		case <-t.C:
		}
		if s.pollers.idle(s, topic) {
			return
		}
		now := snapshot(root, real)
		for name, st := range now {
			if snap[name] != st {
				s.publishJSON(topic, map[string]any{"type": "file_changed", "path": path.Join(rel, name)})
			}
		}
		for name := range snap {
			if _, found := now[name]; !found {
				s.publishJSON(topic, map[string]any{"type": "file_changed", "path": path.Join(rel, name)})
			}
		}
		snap = now
	}
}

type fileStamp struct {
	size  int64
	mtime time.Time
}

// snapshot stamps a file ("" key) or a directory's direct children.
func snapshot(root, real string) map[string]fileStamp {
	out := map[string]fileStamp{}
	fi, err := os.Stat(real)
	if err != nil {
		return out
	}
	if !fi.IsDir() {
		out[""] = fileStamp{fi.Size(), fi.ModTime()}
		return out
	}
	ds, _ := os.ReadDir(real)
	for i, d := range ds {
		if i >= maxDirEntries {
			break
		}
		if info, err := d.Info(); err == nil {
			out[d.Name()] = fileStamp{info.Size(), info.ModTime()}
		}
	}
	return out
}
