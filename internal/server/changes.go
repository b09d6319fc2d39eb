package server

import (
	"net/http"

	"piweb/internal/apitype"
)

// The Changes panel: the git working tree of a session's cwd (internal/gitx
// runs git) and the files the session's own tool calls wrote or edited
// (session.FileChanges). Topic "g/<id>" tells followers when git's view
// changed (one poller per followed session in internal/live, like the files panel's; the
// topic's name is parsed in stream.go's topic switch).

func (s *Server) gitStatus(w http.ResponseWriter, r *http.Request, m Meta) error {
	a, err := s.git.View(r.Context(), m.Cwd)
	return answer(w, a, err)
}

func (s *Server) gitDiff(w http.ResponseWriter, r *http.Request, m Meta) error {
	root, err := s.git.Root(r.Context(), m.Cwd)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	d, err := s.git.FileDiff(r.Context(), root, q.Get("path"), q.Get("which"))
	return answer(w, d, err)
}

// sessionChanges answers the files the session's write and edit calls
// changed, in file order.
func (s *Server) sessionChanges(w http.ResponseWriter, r *http.Request) error {
	_, sess, err := s.open(r)
	if err != nil {
		return err
	}
	return ok(w, apitype.Changes{Changes: sess.FileChanges()})
}
