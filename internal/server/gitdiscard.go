package server

import (
	"context"
	"net/http"
	"piweb/internal/apitype"
)

// Discarding a working tree's unstaged changes from the Changes panel: a
// tracked file goes back to what the index has; an untracked one is
// deleted, only when the request says the user confirmed it (the page
// asks twice). Answers the tree's state after it.
func (s *Server) gitDiscard(w http.ResponseWriter, r *http.Request, m Meta) error {
	return changeTree(s, w, r, m, func(ctx context.Context, root string, req apitype.GitDiscard) error {
		return s.git.Discard(ctx, root, req.Paths, req.Untracked)
	})
}
