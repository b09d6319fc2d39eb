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

func (s *Server) getModels(w http.ResponseWriter, r *http.Request) error {
	raw, err := s.agent.Models(r.Context())
	if err != nil && !errors.Is(err, agent.ErrPiMissing) {
		return err
	}
	return ok(w, s.piconfig().ModelList(raw, err == nil))
}

func (s *Server) getModelsConfig(w http.ResponseWriter, r *http.Request) error {
	f, err := s.piconfig().ReadModels()
	if err != nil {
		return err
	}
	return ok(w, f)
}

func (s *Server) putModelsConfig(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ModelsConfig
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if err := s.piconfig().WriteModels(body.Config); err != nil {
		return err
	}
	// Forget after writing: a listing between forgetting and writing would
	// cache the old models for another minute.
	s.app.ForgetModels()
	return s.getModelsConfig(w, r)
}
