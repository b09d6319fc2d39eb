package server

import (
	"net/http"
	"os"
	"path/filepath"

	"piweb/internal/agent"
)

// trustCwd reads and checks the folder a trust request names.
func trustCwd(cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", errorf(Invalid, "cwd must be an absolute path")
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", errorf(Invalid, "cwd is not an existing directory")
	}
	return cwd, nil
}

// getTrust answers whether pi loads the project resources of ?cwd=.
func (s *Server) getTrust(w http.ResponseWriter, r *http.Request) error {
	cwd, err := trustCwd(r.URL.Query().Get("cwd"))
	if err != nil {
		return err
	}
	pt, err := agent.CheckProjectTrust(s.agentDir, cwd)
	if err != nil {
		return wrap(Internal, err, "cannot read pi's trust.json")
	}
	return ok(w, pt)
}

// postTrust saves the user's decision to trust a folder, as pi's own
// "Trust" choice does; only ever on the user's request.
func (s *Server) postTrust(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Cwd string `json:"cwd"`
	}
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	cwd, err := trustCwd(body.Cwd)
	if err != nil {
		return err
	}
	if err := agent.TrustProject(s.agentDir, cwd); err != nil {
		return wrap(Internal, err, "cannot write pi's trust.json")
	}
	pt, err := agent.CheckProjectTrust(s.agentDir, cwd)
	if err != nil {
		return wrap(Internal, err, "cannot read pi's trust.json")
	}
	return ok(w, pt)
}
