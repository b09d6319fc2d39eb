package server

import (
	"context"
	"net/http"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/ops"
)

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) error {
	cwd := r.URL.Query().Get("cwd")
	if cwd != "" {
		var err error
		if cwd, err = trustCwd(cwd); err != nil {
			return err
		}
	}
	v, err := ops.Config(s.agentDir, cwd)
	return answer(w, v, err)
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) error {
	var body apitype.SettingsChange
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	cwd := ""
	if body.Cwd != "" {
		var err error
		if cwd, err = trustCwd(body.Cwd); err != nil {
			return err
		}
	}
	trusted, err := ops.Trusted(s.agentDir, cwd)
	if err != nil {
		return err
	}
	if err := s.piconfig().UpdateSettings(body.Cwd, trusted, body.Changes, body.ReplaceCorrupt); err != nil {
		return err
	}
	s.app.ForgetModels()
	return s.getConfig(w, r)
}

func (s *Server) putKey(w http.ResponseWriter, r *http.Request) error {
	var body apitype.KeyChange
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if err := s.piconfig().SetAPIKey(r.PathValue("provider"), body.Key, body.ReplaceCorrupt); err != nil {
		return err
	}
	s.app.ForgetModels()
	return ok(w, s.piconfig().ReadAuth())
}

func (s *Server) deleteKey(w http.ResponseWriter, r *http.Request) error {
	if err := s.piconfig().RemoveCredential(r.PathValue("provider")); err != nil {
		return err
	}
	s.app.ForgetModels()
	return ok(w, s.piconfig().ReadAuth())
}

// modelTester is the agent's TestModel (agent.Service has it; NoService
// does not, and the route then answers 503 pi_missing).
type modelTester interface {
	TestModel(ctx context.Context, provider, modelID string, timeout time.Duration) (agent.ModelTest, error)
}

// testTimeout bounds a provider test: a provider that hangs is reported.
const testTimeout = 30 * time.Second

func (s *Server) testModel(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ModelTestRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if body.Provider == "" || body.ModelID == "" {
		return errs.Errorf(errs.Invalid, "provider and modelId are required")
	}
	mt, canTest := s.agent.(modelTester)
	if !canTest {
		return agent.ErrPiMissing
	}
	res, err := mt.TestModel(r.Context(), body.Provider, body.ModelID, s.opts.testTimeout())
	if err != nil {
		return err
	}
	return ok(w, res)
}
