package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"piweb/internal/agent"
	"piweb/internal/session"
)

// maskedKey stands for a literal API key the client is not shown; writing
// it back keeps the stored key.
const maskedKey = "***"

func (s *Server) modelsPath() string { return filepath.Join(s.agentDir, "models.json") }

func (s *Server) getModels(w http.ResponseWriter, r *http.Request) error {
	raw, err := s.agent.Models(r.Context())
	var models []json.RawMessage
	if err == nil {
		var wrapper struct {
			Models []json.RawMessage `json:"models"`
		}
		if json.Unmarshal(raw, &wrapper) == nil && wrapper.Models != nil {
			models = wrapper.Models
		} else {
			json.Unmarshal(raw, &models)
		}
	} else if !errors.Is(err, agent.ErrPiMissing) {
		return agentErr(err)
	} else {
		models = s.configModels() // without pi: what models.json declares
	}
	if models == nil {
		models = []json.RawMessage{}
	}
	return ok(w, map[string]any{"models": models, "default": s.defaultModel()})
}

// configModels lists the models models.json declares, in pi's Model shape.
func (s *Server) configModels() []json.RawMessage {
	cfg, err := s.readModelsConfig()
	if err != nil || cfg == nil {
		return nil
	}
	var out []json.RawMessage
	provs, _ := cfg["providers"].(map[string]any)
	for name, p := range provs {
		pm, _ := p.(map[string]any)
		ms, _ := pm["models"].([]any)
		for _, m := range ms {
			mm, _ := m.(map[string]any)
			if mm == nil {
				continue
			}
			mm["provider"], mm["source"] = name, "models.json"
			if mm["name"] == nil {
				mm["name"] = mm["id"]
			}
			b, _ := json.Marshal(mm)
			out = append(out, b)
		}
	}
	return out
}

// defaultModel reads pi's defaultProvider/defaultModel from settings.json.
func (s *Server) defaultModel() any {
	b, err := os.ReadFile(filepath.Join(s.agentDir, "settings.json"))
	if err != nil {
		return nil
	}
	var st struct {
		DefaultProvider string `json:"defaultProvider"`
		DefaultModel    string `json:"defaultModel"`
	}
	if json.Unmarshal(b, &st) != nil || st.DefaultModel == "" {
		return nil
	}
	return map[string]string{"provider": st.DefaultProvider, "modelId": st.DefaultModel}
}

func (s *Server) readModelsConfig() (map[string]any, error) {
	b, err := os.ReadFile(s.modelsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, wrap(Internal, err, "cannot read models.json")
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, errorf(Invalid, "models.json is not valid JSON: %s", jsonErrText(err))
	}
	return cfg, nil
}

func (s *Server) getModelsConfig(w http.ResponseWriter, r *http.Request) error {
	cfg, err := s.readModelsConfig()
	if err != nil {
		return err
	}
	if cfg == nil {
		return ok(w, map[string]any{"exists": false, "config": map[string]any{"providers": map[string]any{}}})
	}
	forEachProvider(cfg, func(_ string, p map[string]any) {
		if k, isStr := p["apiKey"].(string); isStr && isLiteralKey(k) {
			p["apiKey"] = maskedKey
		}
	})
	return ok(w, map[string]any{"exists": true, "config": cfg})
}

var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// isLiteralKey tells a secret from a reference: pi reads an ALL_CAPS value
// from the environment and runs a "!command".
func isLiteralKey(k string) bool {
	return k != "" && !envName.MatchString(k) && k[0] != '!'
}

func forEachProvider(cfg map[string]any, fn func(string, map[string]any)) {
	provs, _ := cfg["providers"].(map[string]any)
	for name, p := range provs {
		if pm, isObj := p.(map[string]any); isObj {
			fn(name, pm)
		}
	}
}

func (s *Server) putModelsConfig(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Config map[string]any `json:"config"`
	}
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if err := validateModels(body.Config); err != nil {
		return err
	}
	old, err := s.readModelsConfig()
	if err != nil && !isKind(err, Invalid) {
		return err
	}
	forEachProvider(body.Config, func(name string, p map[string]any) {
		if p["apiKey"] == maskedKey {
			p["apiKey"] = storedKey(old, name)
		}
	})
	data, _ := json.MarshalIndent(body.Config, "", "  ")
	if err := writeWithBackup(s.modelsPath(), append(data, '\n')); err != nil {
		return err
	}
	// Forget after writing: a listing between forgetting and writing would
	// cache the old models for another minute.
	if f, canForget := s.agent.(interface{ ForgetModels() }); canForget {
		f.ForgetModels()
	}
	return s.getModelsConfig(w, r)
}

func storedKey(old map[string]any, provider string) any {
	if old == nil {
		return nil
	}
	provs, _ := old["providers"].(map[string]any)
	p, _ := provs[provider].(map[string]any)
	return p["apiKey"]
}

func isKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// validateModels checks what pi's models.json loader needs.
func validateModels(cfg map[string]any) error {
	if cfg == nil {
		return errorf(Invalid, "config is required")
	}
	provs, isObj := cfg["providers"].(map[string]any)
	if !isObj {
		return errorf(Invalid, "providers must be an object")
	}
	for name, p := range provs {
		pm, isObj := p.(map[string]any)
		if !isObj {
			return errorf(Invalid, "provider %q must be an object", name)
		}
		if err := validateProvider(name, pm); err != nil {
			return err
		}
	}
	return nil
}

func validateProvider(name string, p map[string]any) error {
	for _, k := range []string{"baseUrl", "api", "apiKey"} {
		if v, present := p[k]; present {
			if _, isStr := v.(string); !isStr {
				return errorf(Invalid, "provider %q: %s must be a string", name, k)
			}
		}
	}
	ms, present := p["models"]
	if !present {
		return nil
	}
	list, isArr := ms.([]any)
	if !isArr {
		return errorf(Invalid, "provider %q: models must be an array", name)
	}
	if len(list) > 0 && (p["baseUrl"] == nil || p["api"] == nil) {
		return errorf(Invalid, "provider %q: baseUrl and api are required with models", name)
	}
	for i, m := range list {
		mm, isObj := m.(map[string]any)
		if !isObj {
			return errorf(Invalid, "provider %q: model %d must be an object", name, i)
		}
		if id, _ := mm["id"].(string); id == "" {
			return errorf(Invalid, "provider %q: model %d needs a non-empty id", name, i)
		}
		for _, k := range []string{"contextWindow", "maxTokens"} {
			if v, present := mm[k]; present {
				if _, isNum := v.(float64); !isNum {
					return errorf(Invalid, "provider %q: model %d: %s must be a number", name, i, k)
				}
			}
		}
	}
	return nil
}

// writeWithBackup replaces a config file atomically, keeping the previous
// content as <file>.bak.
func writeWithBackup(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return nil
		}
		if err := os.WriteFile(path+".bak", old, 0o600); err != nil {
			return wrap(Internal, err, "cannot back up models.json")
		}
		if _, err := session.RewriteFile(path, data, -1); err != nil {
			return wrap(Internal, err, "cannot write models.json")
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return wrap(Internal, err, "cannot write models.json")
	}
	if err := session.CreateFile(path, data); err != nil {
		return wrap(Internal, fmt.Errorf("%w (%v)", err, time.Now()), "cannot write models.json")
	}
	return nil
}
