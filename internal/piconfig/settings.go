package piconfig

import (
	"encoding/json"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/jsjson"
)

// SettingsFile is one settings.json as read (apitype.SettingsFile, where
// the API's shapes are defined).
type SettingsFile = apitype.SettingsFile

// ReadSettings reads the global settings.json (cwd "") or a project's.
func (s *Store) ReadSettings(cwd string) SettingsFile {
	path := s.settingsPath(cwd)
	f := SettingsFile{Path: path, Settings: json.RawMessage("{}")}
	d, err := readDoc(path)
	if d != nil {
		f.Exists = d.exists
	}
	if err != nil {
		f.Error = err.Error()
		return f
	}
	migrateSettings(&d.obj)
	f.Settings = d.obj.AppendJSON(nil)
	return f
}

func (s *Store) settingsPath(cwd string) string {
	if cwd == "" {
		return s.SettingsPath()
	}
	return ProjectSettingsPath(cwd)
}

// Change sets (or, with a nil Value, removes) one setting: a top-level key,
// or with Sub the member of a nested object such as compaction.enabled
// (apitype.SettingChange, where the API's shapes are defined).
type Change = apitype.SettingChange

// ErrUntrusted is returned for a write to an untrusted project's settings:
// pi refuses it ("Project is not trusted; refusing to write project settings").
var ErrUntrusted = errs.New(errs.Forbidden, "the project is not trusted: pi ignores its settings and refuses to write them; trust it first", "piconfig: the project is not trusted; pi refuses to write its settings")

// UpdateSettings applies changes to the global settings (cwd "") or to a
// trusted project's, as pi's persistScopedSettings does: under pi's lock
// the file is re-read and migrated, changed top-level keys are replaced in
// place (a removed key is left out), a changed nested member replaces only
// that member, and the result is JSON.stringify(settings, null, 2). Every
// change is validated first (ValidateChange); nothing is written if one
// fails.
func (s *Store) UpdateSettings(cwd string, trusted bool, changes []Change, replaceCorrupt bool) error {
	if cwd != "" && !trusted {
		return ErrUntrusted
	}
	for _, c := range changes {
		if err := ValidateChange(c); err != nil {
			return err
		}
	}
	path := s.settingsPath(cwd)
	return s.update(path, path, 0o644, replaceCorrupt, func(d *doc) ([]byte, error) {
		migrateSettings(&d.obj)
		for _, c := range changes {
			if err := applyChange(&d.obj, c); err != nil {
				return nil, err
			}
		}
		return stringify2(d.obj.Value()), nil
	})
}

func applyChange(obj *jsjson.Object, c Change) error {
	v, err := parseValue(c.Value)
	if err != nil {
		return err
	}
	if c.Sub == "" {
		obj.Set(c.Key, v) // Undefined keeps the key's place but leaves it out, as in pi
		return nil
	}
	cur := obj.Value().Get(c.Key)
	nested := cur.Object() // {} unless an object, like pi's `?? {}` for what it can spread
	nested.Set(c.Sub, v)
	obj.Set(c.Key, nested.Value())
	return nil
}

// parseValue parses a change's value; empty, absent or null means remove.
func parseValue(raw json.RawMessage) (jsjson.Value, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return jsjson.Value{}, nil
	}
	v, err := jsjson.Parse(raw)
	if err != nil {
		return v, invalidf("value is not valid JSON")
	}
	return v, nil
}

func has(obj *jsjson.Object, key string) bool {
	return obj.Value().Get(key).Kind() != jsjson.UndefinedKind
}

// migrateSettings is pi 1.6.0's SettingsManager.migrateSettings, which pi
// applies to a settings file before every write.
func migrateSettings(o *jsjson.Object) {
	v := o.Value()
	if has(o, "queueMode") && !has(o, "steeringMode") {
		o.Set("steeringMode", v.Get("queueMode"))
		o.Delete("queueMode")
	}
	if ws := v.Get("websockets"); !has(o, "transport") && ws.Kind() == jsjson.BoolKind {
		t := "sse"
		if ws.Bool() {
			t = "websocket"
		}
		o.Set("transport", jsjson.String(t))
		o.Delete("websockets")
	}
	migrateSkills(o)
	migrateRetry(o)
}

// migrateSkills turns the old skills object into the array of folders.
func migrateSkills(o *jsjson.Object) {
	sk := o.Value().Get("skills")
	if sk.Kind() != jsjson.ObjectKind {
		return
	}
	if esc := sk.Get("enableSkillCommands"); esc.Kind() != jsjson.UndefinedKind && !has(o, "enableSkillCommands") {
		o.Set("enableSkillCommands", esc)
	}
	if dirs := sk.Get("customDirectories"); dirs.Kind() == jsjson.ArrayKind && dirs.Len() > 0 {
		o.Set("skills", dirs)
	} else {
		o.Delete("skills")
	}
}

// migrateRetry moves retry.maxDelayMs to retry.provider.maxRetryDelayMs.
func migrateRetry(o *jsjson.Object) {
	rv := o.Value().Get("retry")
	if rv.Kind() != jsjson.ObjectKind {
		return
	}
	r := rv.Object()
	prov := rv.Get("provider")
	if md := rv.Get("maxDelayMs"); md.Kind() == jsjson.NumberKind {
		if k := prov.Get("maxRetryDelayMs").Kind(); prov.Kind() != jsjson.ObjectKind || k == jsjson.UndefinedKind || k == jsjson.NullKind {
			p := prov.Object()
			p.Set("maxRetryDelayMs", md)
			r.Set("provider", p.Value())
		}
	}
	if !has(&r, "maxDelayMs") {
		return
	}
	r.Delete("maxDelayMs")
	o.Set("retry", r.Value())
}
