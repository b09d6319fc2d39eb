package server

import (
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"

	"piweb/internal/apitype"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
)

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request, m Meta) error {
	rel := r.URL.Query().Get("path")
	clean := path.Clean("/" + filepath.ToSlash(rel))[1:]
	root, real, err := cwdfs.Resolve(m.Cwd, rel)
	if err == cwdfs.ErrCwdGone && clean == "" {
		// A session outlives its project folder; saying so is an answer,
		// not an error (a 404 would be logged in the browser's console).
		return ok(w, apitype.FileList{Path: "", Entries: []cwdfs.Entry{}, Missing: true})
	} else if err != nil {
		return err
	}
	entries, err := cwdfs.ReadDir(root, real)
	if err != nil {
		return err
	}
	return ok(w, apitype.FileList{Path: clean, Entries: entries})
}

// fileCSP keeps anything in a session's folder from running: a file is
// shown in a sandbox with no scripts. A PDF is the exception to the
// sandbox (a sandboxed document cannot have the browser's PDF viewer), not
// to the rest: no script, no fetch, no form, and it may be framed by the
// app only.
const (
	fileCSP = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; media-src 'self'"
	pdfCSP  = "default-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'"
)

func (s *Server) readFile(w http.ResponseWriter, r *http.Request, m Meta) error {
	root, real, err := cwdfs.Resolve(m.Cwd, r.URL.Query().Get("path"))
	if err != nil {
		return err
	}
	rt, f, err := cwdfs.OpenInside(root, real)
	if err != nil {
		return err
	}
	defer rt.Close()
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return errs.Errorf(errs.Invalid, "not a regular file")
	}
	if ctype := cwdfs.MediaType(real); ctype != "" {
		return serveMedia(w, r, f, fi, ctype)
	}
	if fi.Size() > cwdfs.MaxFileRead {
		return errs.Errorf(errs.TooLarge, "file is over %d bytes", cwdfs.MaxFileRead)
	}
	data, err := io.ReadAll(io.LimitReader(f, cwdfs.MaxFileRead+1))
	if err != nil {
		return errs.E("files.Read", errs.Internal, "cannot read file", err)
	}
	ctype := "application/octet-stream"
	if cwdfs.IsText(data) {
		ctype = "text/plain; charset=utf-8"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Security-Policy", fileCSP)
	h.Set("Cache-Control", "no-store")
	w.Write(data)
	return nil
}

// serveMedia streams an image, PDF, audio or video file with its own type
// (never sniffed), answering ranges so that audio and video can seek.
func serveMedia(w http.ResponseWriter, r *http.Request, f *os.File, fi os.FileInfo, ctype string) error {
	if fi.Size() > cwdfs.MaxMedia {
		return errs.Errorf(errs.TooLarge, "file is over %d bytes", cwdfs.MaxMedia)
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", fileCSP)
	if ctype == "application/pdf" {
		h.Set("Content-Security-Policy", pdfCSP)
		h.Set("X-Frame-Options", "SAMEORIGIN")
	}
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return nil
}
