package server

import (
	"net/http"

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
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) error {
	pc := s.piconfig()
	v := ConfigView{Global: pc.ReadSettings(""), Schema: piconfig.Settings, Auth: pc.ReadAuth()}
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
