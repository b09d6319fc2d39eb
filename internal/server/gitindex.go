package server

import (
	"context"
	"net/http"

	"piweb/internal/apitype"
)

// The git index of a session's working tree, as the Changes panel changes
// it: stage and unstage files (gitx runs git). Each answers the working
// tree's new state, as GET git/status does.

func (s *Server) gitStage(w http.ResponseWriter, r *http.Request, m Meta) error {
	return s.changeIndex(w, r, m, s.git.Stage)
}

func (s *Server) gitUnstage(w http.ResponseWriter, r *http.Request, m Meta) error {
	return s.changeIndex(w, r, m, s.git.Unstage)
}

// changeIndex runs change on the paths the body names, in the working
// tree's top folder, and answers the tree's state after it.
func (s *Server) changeIndex(w http.ResponseWriter, r *http.Request, m Meta,
	change func(ctx context.Context, root string, paths []string) error) error {
	var req apitype.GitPaths
	if err := decodeBody(w, r, &req, maxBody); err != nil {
		return err
	}
	root, err := s.git.Root(r.Context(), m.Cwd)
	if err != nil {
		return err
	}
	if err := change(r.Context(), root, req.Paths); err != nil {
		return err
	}
	return s.gitStatus(w, r, m)
}
