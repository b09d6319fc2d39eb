package server

import (
	"net/http"
	"strconv"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/gitx"
)

// Commits of a session's working tree: the last ones (GET), and a new one
// of what is staged (POST), with the repository's hooks run as git runs
// them; every refusal (nothing staged, a hook's no, a detached HEAD, a
// merge in progress) is said in words and changes nothing.

const defaultCommits, maxCommits = 20, 200

func (s *Server) gitCommits(w http.ResponseWriter, r *http.Request, m Meta) error {
	n := defaultCommits
	if v := r.URL.Query().Get("limit"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > maxCommits {
			return errs.Errorf(errs.Invalid, "limit must be 1 to %d", maxCommits)
		}
	}
	list, err := s.git.Log(r.Context(), m.Cwd, n)
	return answer(w, apitype.GitCommits{Commits: list}, err)
}

func (s *Server) gitCommit(w http.ResponseWriter, r *http.Request, m Meta) error {
	var req apitype.GitCommitRequest
	if err := decodeBody(w, r, &req, gitx.MaxMessage+4<<10); err != nil {
		return err
	}
	c, err := s.git.CommitStaged(r.Context(), m.Cwd, req.Message)
	if err != nil {
		return err
	}
	return ok(w, c)
}
