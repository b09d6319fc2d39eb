package piconfig

import (
	"encoding/json"

	"piweb/internal/apitype"
	"piweb/internal/jsjson"
)

// MaskedKey stands for a literal apiKey of models.json that the browser
// is not shown; writing it back keeps the stored key.
const MaskedKey = "***"

// ModelsFile is models.json as the browser may see it: literal apiKeys
// replaced by MaskedKey (apitype.ModelsFile, where the API's shapes are
// defined).
type ModelsFile = apitype.ModelsFile

// ReadModels reads models.json with literal keys masked; a missing file is
// {"providers":{}}.
func (s *Store) ReadModels() (ModelsFile, error) {
	f := ModelsFile{Path: s.ModelsPath(), Config: json.RawMessage(`{"providers":{}}`)}
	d, err := readDoc(f.Path)
	if d == nil {
		return f, err
	}
	f.Exists = d.exists
	if err != nil {
		return f, err
	}
	if !d.exists {
		return f, nil
	}
	masked := mapProviders(d.obj, func(_ string, p *jsjson.Object) {
		if k := p.Value().Get("apiKey"); k.Kind() == jsjson.StringKind && !isReference(k.Str()) && k.Str() != "" {
			p.Set("apiKey", jsjson.String(MaskedKey))
		}
	})
	f.Config = masked.AppendJSON(nil)
	return f, nil
}

// mapProviders returns a copy of cfg whose object-valued providers were
// edited by fn.
func mapProviders(cfg jsjson.Object, fn func(string, *jsjson.Object)) jsjson.Object {
	pv := cfg.Value().Get("providers")
	if pv.Kind() != jsjson.ObjectKind {
		return cfg
	}
	provs := pv.Object()
	for i := range pv.Len() {
		if p := pv.Index(i); p.Kind() == jsjson.ObjectKind {
			po := p.Object()
			fn(pv.Key(i), &po)
			provs.Set(pv.Key(i), po.Value())
		}
	}
	cfg.Set("providers", provs.Value())
	return cfg
}

// WriteModels replaces models.json with config (as the browser edited
// ReadModels' answer): MaskedKey values become the stored keys again, the
// result is validated as pi's loader needs, and written with JSON.stringify
// (config, null, 2) and a final newline, atomically with a backup.
func (s *Store) WriteModels(config json.RawMessage) error {
	v, err := jsjson.Parse(config)
	if err != nil || v.Kind() != jsjson.ObjectKind {
		return invalidf("config is required and must be an object")
	}
	if err := validateModels(v); err != nil {
		return err
	}
	path := s.ModelsPath()
	return s.update(path, path, 0o600, true, func(d *doc) ([]byte, error) {
		old := d.obj.Value().Get("providers")
		next := mapProviders(v.Object(), func(name string, p *jsjson.Object) {
			if p.Value().Get("apiKey").Str() == MaskedKey {
				p.Set("apiKey", old.Get(name).Get("apiKey"))
			}
		})
		return append(stringify2(next.Value()), '\n'), nil
	})
}

// validateModels checks what pi's models.json loader needs.
func validateModels(cfg jsjson.Value) error {
	provs := cfg.Get("providers")
	if provs.Kind() != jsjson.ObjectKind {
		return invalidf("providers must be an object")
	}
	for i := range provs.Len() {
		name, p := provs.Key(i), provs.Index(i)
		if p.Kind() != jsjson.ObjectKind {
			return invalidf("provider %q must be an object", name)
		}
		if err := validateProvider(name, p); err != nil {
			return err
		}
	}
	return nil
}

func validateProvider(name string, p jsjson.Value) error {
	for _, k := range []string{"baseUrl", "api", "apiKey"} {
		if v := p.Get(k); v.Kind() != jsjson.UndefinedKind && v.Kind() != jsjson.StringKind {
			return invalidf("provider %q: %s must be a string", name, k)
		}
	}
	if k := p.Get("apiKey").Str(); k != "" && k != MaskedKey {
		if err := CheckKey(k); err != nil {
			return invalidf("provider %q: %s", name, err)
		}
	}
	ms := p.Get("models")
	if ms.Kind() == jsjson.UndefinedKind {
		return nil
	}
	if ms.Kind() != jsjson.ArrayKind {
		return invalidf("provider %q: models must be an array", name)
	}
	if ms.Len() > 0 && (p.Get("baseUrl").Kind() == jsjson.UndefinedKind || p.Get("api").Kind() == jsjson.UndefinedKind) {
		return invalidf("provider %q: baseUrl and api are required with models", name)
	}
	for i := range ms.Len() {
		if err := validateModel(name, i, ms.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

func validateModel(name string, i int, m jsjson.Value) error {
	if m.Kind() != jsjson.ObjectKind {
		return invalidf("provider %q: model %d must be an object", name, i)
	}
	if id := m.Get("id"); id.Kind() != jsjson.StringKind || id.Str() == "" {
		return invalidf("provider %q: model %d needs a non-empty id", name, i)
	}
	for _, k := range []string{"contextWindow", "maxTokens"} {
		if v := m.Get(k); v.Kind() != jsjson.UndefinedKind && v.Kind() != jsjson.NumberKind {
			return invalidf("provider %q: model %d: %s must be a number", name, i, k)
		}
	}
	return nil
}

// ConfigModels lists the models models.json declares in pi's Model shape
// (provider and source filled in, name defaulting to id), for when pi
// cannot be asked.
func (s *Store) ConfigModels() []json.RawMessage {
	provs, ok := s.customProviders()
	if !ok {
		return nil
	}
	var out []json.RawMessage
	for i := range provs.Len() {
		ms := provs.Index(i).Get("models")
		if ms.Kind() != jsjson.ArrayKind {
			continue
		}
		for j := range ms.Len() {
			if m := ms.Index(j); m.Kind() == jsjson.ObjectKind {
				mo := m.Object()
				if m.Get("name").Kind() == jsjson.UndefinedKind {
					mo.Set("name", m.Get("id"))
				}
				mo.Set("provider", jsjson.String(provs.Key(i)))
				mo.Set("source", jsjson.String("models.json"))
				out = append(out, mo.AppendJSON(nil))
			}
		}
	}
	return out
}

// customProviders is models.json's providers object (false when the
// file is missing, does not parse or has none).
func (s *Store) customProviders() (jsjson.Value, bool) {
	d, err := readDoc(s.ModelsPath())
	if err != nil || d == nil {
		return jsjson.Value{}, false
	}
	provs := d.obj.Value().Get("providers")
	return provs, provs.Kind() == jsjson.ObjectKind
}

// CustomProviders names the providers models.json declares (none when it
// is missing or does not parse).
func (s *Store) CustomProviders() []string {
	provs, ok := s.customProviders()
	if !ok {
		return nil
	}
	out := make([]string, 0, provs.Len())
	for i := range provs.Len() {
		out = append(out, provs.Key(i))
	}
	return out
}

// ModelList is GET /api/models: pi's available models (or, without pi, what
// models.json declares), settings.json's default model and its
// enabledModels patterns (null: every model is offered) (apitype.ModelList,
// where the API's shapes are defined).
type ModelList = apitype.ModelList

// ModelRef names a model as pi's settings do (apitype.ModelRef, where the
// API's shapes are defined).
type ModelRef = apitype.ModelRef

// ModelList is the models answer: pi's available models from its
// get_available_models data (fromPi; without pi, what models.json
// declares), with settings.json's default model and enabledModels.
func (s *Store) ModelList(fromPi json.RawMessage, havePi bool) ModelList {
	var models []json.RawMessage
	if havePi {
		var wrapper struct {
			Models []json.RawMessage `json:"models"`
		}
		if json.Unmarshal(fromPi, &wrapper) == nil && wrapper.Models != nil {
			models = wrapper.Models
		} else {
			json.Unmarshal(fromPi, &models)
		}
	} else {
		models = s.ConfigModels()
	}
	if models == nil {
		models = []json.RawMessage{}
	}
	out := ModelList{Models: models}
	var st struct {
		DefaultProvider string   `json:"defaultProvider"`
		DefaultModel    string   `json:"defaultModel"`
		EnabledModels   []string `json:"enabledModels"`
	}
	if json.Unmarshal(s.ReadSettings("").Settings, &st) == nil {
		if st.DefaultModel != "" {
			out.Default = &ModelRef{Provider: st.DefaultProvider, ModelID: st.DefaultModel}
		}
		out.EnabledModels = st.EnabledModels
	}
	return out
}
