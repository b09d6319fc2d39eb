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
	return changeTree(s, w, r, m, func(ctx context.Context, root string, req apitype.GitPaths) error {
		return s.git.Stage(ctx, root, req.Paths)
	})
}

func (s *Server) gitUnstage(w http.ResponseWriter, r *http.Request, m Meta) error {
	return changeTree(s, w, r, m, func(ctx context.Context, root string, req apitype.GitPaths) error {
		return s.git.Unstage(ctx, root, req.Paths)
	})
}

// changeTree decodes the body as a T, runs change with it in the working
// tree's top folder, and answers the tree's state after it.
func changeTree[T any](s *Server, w http.ResponseWriter, r *http.Request, m Meta,
	change func(ctx context.Context, root string, req T) error) error {
	var req T
	if err := decodeBody(w, r, &req, maxBody); err != nil {
		return err
	}
	root, err := s.git.Root(r.Context(), m.Cwd)
	if err != nil {
		return err
	}
	if err := change(r.Context(), root, req); err != nil {
		return err
	}
	return s.gitStatus(w, r, m)
}
