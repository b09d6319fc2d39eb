package server

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"os"
	"path"

	"piweb/internal/cwdfs"
)

// uploadRequest is POST /upload's body: a file for a folder of the
// session's cwd. JSON like every state change (base64 data), so that no
// HTML form of another site can send one.
type uploadRequest struct {
	Path      string `json:"path"`
	Name      string `json:"name"`
	Data      string `json:"data"`
	Overwrite bool   `json:"overwrite"`
}

type uploadAnswer struct {
	Path string `json:"path"`
	Size int    `json:"size"`
}

// upload writes a file into the session's cwd (cwdfs.Upload: a temp file
// moved into place, never over an existing file unless confirmed).
func (s *Server) upload(w http.ResponseWriter, r *http.Request) error {
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	var req uploadRequest
	if err := decodeBody(w, r, &req, cwdfs.MaxUpload/3*4+64<<10); err != nil {
		return err
	}
	data, err := base64.StdEncoding.DecodeString(req.Data)
	if err != nil {
		return errorf(Invalid, "data must be base64")
	}
	root, real, err := cwdfs.Resolve(m.Cwd, req.Path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return errorf(Invalid, "not a folder")
	}
	if err := cwdfs.Upload(root, real, req.Name, bytes.NewReader(data), cwdfs.MaxUpload, req.Overwrite); err != nil {
		return err
	}
	return ok(w, uploadAnswer{Path: path.Join(path.Clean("/" + req.Path)[1:], req.Name), Size: len(data)})
}
