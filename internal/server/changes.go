package server

import (
	"errors"
	"net/http"

	"piweb/internal/apitype"
	"piweb/internal/gitx"
)

// The Changes panel: the git working tree of a session's cwd (internal/gitx
// runs git) and the files the session's own tool calls wrote or edited
// (session.FileChanges). Topic "g/<id>" tells followers when git's view
// changed (one poller per followed session in internal/live, like the files panel's; the
// topic's name is parsed in stream.go's topic switch).

func (s *Server) gitStatus(w http.ResponseWriter, r *http.Request, m Meta) error {
	a, err := s.git.View(r.Context(), m.Cwd)
	if err != nil {
		return wrap(Internal, err, "git status failed")
	}
	return ok(w, a)
}

func (s *Server) gitDiff(w http.ResponseWriter, r *http.Request, m Meta) error {
	root, err := s.git.Root(r.Context(), m.Cwd)
	if err != nil {
		return gitErr(err)
	}
	q := r.URL.Query()
	d, err := s.git.FileDiff(r.Context(), root, q.Get("path"), q.Get("which"))
	if errors.Is(err, gitx.ErrBadPath) {
		return errorf(Forbidden, "path must be relative to the repository and stay inside it")
	} else if err != nil {
		return gitErr(err)
	}
	return ok(w, d)
}

// gitErr words git's failure for the client: a known state as 404 with
// its message, anything else as an internal error (git's own words, which
// may hold paths, only in the log).
func gitErr(err error) error {
	if _, known := gitx.Known(err); known != nil {
		return errorf(NotFound, "%s", known.Error())
	}
	return wrap(Internal, err, "git failed")
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
