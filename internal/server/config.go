package server

import (
	"errors"
	"net/http"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/piconfig"
)

// pi's own configuration (settings.json, auth.json, models.json) through
// internal/piconfig; these handlers only decode, call and encode.

func (s *Server) piconfig() *piconfig.Store { return &piconfig.Store{AgentDir: s.agentDir} }

// configErr words piconfig's errors for the client: its messages are
// written for the user and hold no paths beyond a file's base name.
func configErr(err error) error {
	var inv *piconfig.InvalidError
	var bad *piconfig.CorruptError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &inv):
		return &Error{Kind: Invalid, Msg: inv.Msg, Err: err}
	case errors.As(err, &bad):
		return &Error{Kind: Corrupt, Msg: bad.Error(), Err: err}
	case errors.Is(err, piconfig.ErrNoCredential):
		return wrap(NotFound, err, "auth.json has no credential for this provider")
	case errors.Is(err, piconfig.ErrLocked):
		return wrap(Busy, err, "another pi is writing the file; try again")
	case errors.Is(err, piconfig.ErrUntrusted):
		return wrap(Forbidden, err, "the project is not trusted: pi ignores its settings and refuses to write them; trust it first")
	}
	return wrap(Internal, err, "cannot write pi's configuration")
}

// forgetModels makes the next model listing ask pi again.
func (s *Server) forgetModels() {
	if f, canForget := s.agent.(interface{ ForgetModels() }); canForget {
		f.ForgetModels()
	}
}

func (s *Server) getModels(w http.ResponseWriter, r *http.Request) error {
	raw, err := s.agent.Models(r.Context())
	if err != nil && !errors.Is(err, agent.ErrPiMissing) {
		return agentErr(err)
	}
	return ok(w, s.piconfig().ModelList(raw, err == nil))
}

func (s *Server) getModelsConfig(w http.ResponseWriter, r *http.Request) error {
	f, err := s.piconfig().ReadModels()
	if err != nil {
		return configErr(err)
	}
	return ok(w, f)
}

func (s *Server) putModelsConfig(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ModelsConfig
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if err := configErr(s.piconfig().WriteModels(body.Config)); err != nil {
		return err
	}
	// Forget after writing: a listing between forgetting and writing would
	// cache the old models for another minute.
	s.forgetModels()
	return s.getModelsConfig(w, r)
}
