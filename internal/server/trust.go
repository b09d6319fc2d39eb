package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// absCwd checks that a trust request names its folder by an absolute path.
func absCwd(cwd string) error {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return errs.Errorf(errs.Invalid, "cwd must be an absolute path")
	}
	return nil
}

// trustCwd reads and checks the folder a trust request names.
func trustCwd(cwd string) (string, error) {
	if err := absCwd(cwd); err != nil {
		return "", err
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", errs.Errorf(errs.Invalid, "cwd is not an existing directory")
	}
	return cwd, nil
}

// cwdRequest decodes the body as a T and checks the folder cwdOf reads
// from it (trustCwd): the start of a request about a folder's pi
// configuration, as sessionRequest is of one about a session.
func cwdRequest[T any](w http.ResponseWriter, r *http.Request, cwdOf func(T) string) (T, string, error) {
	var body T
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return body, "", err
	}
	cwd, err := trustCwd(cwdOf(body))
	return body, cwd, err
}

// getTrust answers whether pi loads the project resources of ?cwd=, for
// the session ?session= when given (approved for itself, or not).
// A folder that does not exist (a session whose folder is gone) is not an
// error: the answer says so (missing), with nothing in it to trust.
func (s *Server) getTrust(w http.ResponseWriter, r *http.Request) error {
	cwd := r.URL.Query().Get("cwd")
	if err := absCwd(cwd); err != nil {
		return err
	}
	return s.answerTrust(r.Context(), w, cwd, r.URL.Query().Get("session"))
}

// postTrust records the user's decision, only ever on the user's request:
// for the folder in pi's trust.json, as pi's own "Trust" choice does, or,
// with a session, for that session only: its pi starts with --approve
// (its idle worker is stopped so that the next command starts one).
func (s *Server) postTrust(w http.ResponseWriter, r *http.Request) error {
	body, cwd, err := cwdRequest(w, r, func(b apitype.TrustRequest) string { return b.Cwd })
	if err != nil {
		return err
	}
	if body.Session != "" {
		m, err := s.lookupID(r.Context(), body.Session)
		if err != nil {
			return err
		}
		if err := s.agent.Approve(r.Context(), m.Path); err != nil {
			return err
		}
	} else if err := agent.TrustProject(s.agentDir, cwd); err != nil {
		return errs.E("agent.TrustProject", errs.Internal, "cannot write pi's trust.json", err)
	}
	return s.answerTrust(r.Context(), w, cwd, body.Session)
}

// answerTrust writes the folder's trust, as the session id (if any) sees
// it: an approved session's pi loads the resources whatever trust.json says.
func (s *Server) answerTrust(ctx context.Context, w http.ResponseWriter, cwd, id string) error {
	pt, err := agent.CheckProjectTrust(s.agentDir, cwd)
	if err != nil {
		return errs.E("agent.CheckProjectTrust", errs.Internal, "cannot read pi's trust.json", err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		pt.Missing = true
	}
	if id != "" {
		if m, err := s.lookupID(ctx, id); err == nil && s.agent.Approved(m.Path) {
			pt.Approved, pt.Trusted, pt.Skipped = true, true, false
		}
	}
	return ok(w, pt)
}
