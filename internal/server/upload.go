package server

import (
	"net/http"
	"os"
	"path"

	"piweb/internal/apitype"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
)

// upload writes the request body, streamed, into a folder of the
// session's cwd (cwdfs.Upload: a temp file moved into place, never over
// an existing file unless confirmed). The body is the file's bytes as
// application/octet-stream (which no HTML form can send; the guard lets
// this route alone take it); ?path= is the folder, ?name= the file's
// name, ?overwrite=1 the user's confirmation to replace one. A body over
// cwdfs.MaxUpload is refused as soon as its length says so, or once that
// many bytes have come.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, m Meta) error {
	if r.ContentLength > cwdfs.MaxUpload {
		return errs.Errorf(errs.TooLarge, "the file is over %d bytes", cwdfs.MaxUpload)
	}
	q := r.URL.Query()
	root, real, err := cwdfs.Resolve(m.Cwd, q.Get("path"))
	if err != nil {
		return err
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return errs.Errorf(errs.Invalid, "not a folder")
	}
	body := http.MaxBytesReader(w, r.Body, cwdfs.MaxUpload+1)
	n, err := cwdfs.Upload(root, real, q.Get("name"), body, cwdfs.MaxUpload, q.Get("overwrite") == "1")
	if err != nil {
		return err
	}
	return ok(w, apitype.Upload{Path: path.Join(path.Clean("/" + q.Get("path"))[1:], q.Get("name")), Size: n})
}
