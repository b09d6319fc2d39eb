package server

import (
	"net/http"

	"piweb/internal/apitype"
)

// Discarding a working tree's unstaged changes from the Changes panel: a
// tracked file goes back to what the index has; an untracked one is
// deleted, only when the request says the user confirmed it (the page
// asks twice). Answers the tree's state after it.
func (s *Server) gitDiscard(w http.ResponseWriter, r *http.Request, m Meta) error {
	var req apitype.GitDiscard
	if err := decodeBody(w, r, &req, maxBody); err != nil {
		return err
	}
	root, err := s.git.Root(r.Context(), m.Cwd)
	if err != nil {
		return err
	}
	if err := s.git.Discard(r.Context(), root, req.Paths, req.Untracked); err != nil {
		return err
	}
	return s.gitStatus(w, r, m)
}
