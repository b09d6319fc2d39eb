package server

import (
	"context"
	"net/http"
	"time"

	"piweb/internal/agent"
	"piweb/internal/piconfig"
)

// ConfigView is GET /api/config: pi's global settings, a project's
// (?cwd=) with its trust, the settings piweb edits with pi's defaults, and
// auth.json's credentials, masked.
type ConfigView struct {
	Global  piconfig.SettingsFile  `json:"global"`
	Project *piconfig.SettingsFile `json:"project,omitempty"`
	Trust   *agent.ProjectTrust    `json:"trust,omitempty"`
	Schema  []piconfig.Setting     `json:"schema"`
	Auth    piconfig.AuthFile      `json:"auth"`
	// Providers are pi's built-in providers (pi lists only configured
	// ones' models).
	Providers []piconfig.Provider `json:"providers"`
	// Custom names the providers models.json declares.
	Custom []string `json:"custom"`
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) error {
	pc := s.piconfig()
	v := ConfigView{Global: pc.ReadSettings(""), Schema: piconfig.Settings, Auth: pc.ReadAuth(), Providers: piconfig.Providers,
		Custom: pc.CustomProviders()}
	if c := r.URL.Query().Get("cwd"); c != "" {
		cwd, err := trustCwd(c)
		if err != nil {
			return err
		}
		pt, err := agent.CheckProjectTrust(s.agentDir, cwd)
		if err != nil {
			return wrap(Internal, err, "cannot read pi's trust.json")
		}
		p := pc.ReadSettings(cwd)
		v.Project, v.Trust = &p, &pt
	}
	return ok(w, v)
}

// SettingsChange is PUT /api/config/settings: changes to the global
// settings, or a trusted project's when Cwd is set. ReplaceCorrupt
// replaces a file that does not parse (it is copied aside first).
type SettingsChange struct {
	Cwd            string            `json:"cwd,omitempty"`
	Changes        []piconfig.Change `json:"changes"`
	ReplaceCorrupt bool              `json:"replaceCorrupt,omitempty"`
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) error {
	var body SettingsChange
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	trusted := false
	if body.Cwd != "" {
		cwd, err := trustCwd(body.Cwd)
		if err != nil {
			return err
		}
		pt, err := agent.CheckProjectTrust(s.agentDir, cwd)
		if err != nil {
			return wrap(Internal, err, "cannot read pi's trust.json")
		}
		trusted = pt.Trusted
	}
	if err := configErr(s.piconfig().UpdateSettings(body.Cwd, trusted, body.Changes, body.ReplaceCorrupt)); err != nil {
		return err
	}
	s.forgetModels()
	return s.getConfig(w, r)
}

// KeyChange is PUT /api/config/auth/{provider}: the API key to store.
type KeyChange struct {
	Key            string `json:"key"`
	ReplaceCorrupt bool   `json:"replaceCorrupt,omitempty"`
}

func (s *Server) putKey(w http.ResponseWriter, r *http.Request) error {
	var body KeyChange
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if err := configErr(s.piconfig().SetAPIKey(r.PathValue("provider"), body.Key, body.ReplaceCorrupt)); err != nil {
		return err
	}
	s.forgetModels()
	return ok(w, s.piconfig().ReadAuth())
}

func (s *Server) deleteKey(w http.ResponseWriter, r *http.Request) error {
	if err := configErr(s.piconfig().RemoveCredential(r.PathValue("provider"))); err != nil {
		return err
	}
	s.forgetModels()
	return ok(w, s.piconfig().ReadAuth())
}

// modelTester is the agent's TestModel (agent.Service has it; NoService
// does not, and the route then answers 503 pi_missing).
type modelTester interface {
	TestModel(ctx context.Context, provider, modelID string, timeout time.Duration) (agent.ModelTest, error)
}

// testTimeout bounds a provider test: a provider that hangs is reported.
const testTimeout = 30 * time.Second

// ModelTestRequest is POST /api/config/test.
type ModelTestRequest struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

func (s *Server) testModel(w http.ResponseWriter, r *http.Request) error {
	var body ModelTestRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if body.Provider == "" || body.ModelID == "" {
		return errorf(Invalid, "provider and modelId are required")
	}
	mt, canTest := s.agent.(modelTester)
	if !canTest {
		return agentErr(agent.ErrPiMissing)
	}
	res, err := mt.TestModel(r.Context(), body.Provider, body.ModelID, s.opts.testTimeout())
	if err != nil {
		return agentErr(err)
	}
	return ok(w, res)
}

// resourceLister is the agent's Resources.
type resourceLister interface {
	Resources(ctx context.Context, cwd string) ([]agent.Resource, error)
}

// ResourceList is GET /api/config/resources?cwd=DIR: what pi's RPC names
// (skills, prompts, extension commands) and what it does not (MCP
// servers, pi packages, extensions, from pi's files; a project's only
// when pi trusts it).
type ResourceList struct {
	Resources []agent.Resource     `json:"resources"`
	Installed []piconfig.Installed `json:"installed"`
}

func (s *Server) getResources(w http.ResponseWriter, r *http.Request) error {
	cwd, err := trustCwd(r.URL.Query().Get("cwd"))
	if err != nil {
		return err
	}
	rl, canList := s.agent.(resourceLister)
	if !canList {
		return agentErr(agent.ErrPiMissing)
	}
	res, err := rl.Resources(r.Context(), cwd)
	if err != nil {
		return agentErr(err)
	}
	pt, err := agent.CheckProjectTrust(s.agentDir, cwd)
	if err != nil {
		return wrap(Internal, err, "cannot read pi's trust.json")
	}
	project := ""
	if pt.Trusted {
		project = cwd
	}
	return ok(w, ResourceList{Resources: res, Installed: s.piconfig().Installed(project)})
}
