package piconfig

import (
	"path/filepath"
	"strings"

	"piweb/internal/jsjson"
)

// ResourceRef is one resource as pi's package manager resolves it (the
// item `pi config` toggles): its settings key ("extensions", "skills",
// "prompts", "themes"), its file (or "builtin:<name>"), and its metadata.
type ResourceRef struct {
	Type    string `json:"type"`
	Path    string `json:"path"`
	Scope   string `json:"scope"`  // "user" or "project"
	Origin  string `json:"origin"` // "top-level" or "package"
	Source  string `json:"source"` // "auto", "local", "builtin" or a package source
	BaseDir string `json:"baseDir,omitempty"`
}

// resourceTypes are pi's RESOURCE_TYPES, the settings keys of resources.
var resourceTypes = map[string]bool{"extensions": true, "skills": true, "prompts": true, "themes": true}

// SetResourceEnabled enables or disables one user resource exactly as pi
// 1.6.0's `pi config` does in its global mode (toggleTopLevelResource,
// togglePackageResource), in the global settings.json: any +, - or !
// entry for the resource (and a plain one naming it) in the key's array
// (for a package, the array of the package's object entry, a string
// entry becoming {"source": ...}) is replaced with "+pattern" or
// "-pattern", the pattern relative to the resource's base folder. A
// project resource is pi config's project mode: SetProjectOverride. The
// file is written like UpdateSettings writes it; a resource whose package
// settings no longer name is left alone.
func (s *Store) SetResourceEnabled(r ResourceRef, enabled bool) error {
	if !resourceTypes[r.Type] || r.Path == "" {
		return invalidf("unknown resource type %q", r.Type)
	}
	if r.Scope != "user" {
		return invalidf("pi config toggles only a user resource in the global settings")
	}
	return s.writeSwitch(s.SettingsPath(), r, &toggle{r: r, enabled: enabled, agentDir: s.AgentDir})
}

// switcher is a resource's switch as it edits a settings document: in
// its package's entry (false when settings no longer name the package),
// or in the array for its type.
type switcher interface {
	inPackage(obj *jsjson.Object) bool
	topLevel(obj *jsjson.Object)
}

// writeSwitch writes resource r's switch w into the settings file at
// path, as pi config writes it (settings migrated first, two-space JSON).
func (s *Store) writeSwitch(path string, r ResourceRef, w switcher) error {
	return s.update(path, path, 0o644, false, func(d *doc) ([]byte, error) {
		migrateSettings(&d.obj)
		if r.Origin == "package" {
			if !w.inPackage(&d.obj) {
				return nil, nil
			}
		} else {
			w.topLevel(&d.obj)
		}
		return stringify2(d.obj.Value()), nil
	})
}

// toggle is one resource's new state and what its patterns are relative to.
type toggle struct {
	r             ResourceRef
	enabled       bool
	agentDir, cwd string
}

// entry is the new "+pattern" or "-pattern".
func (t *toggle) entry(pattern string) jsjson.Value {
	if t.enabled {
		return jsjson.String("+" + pattern)
	}
	return jsjson.String("-" + pattern)
}

// topLevel is toggleTopLevelResource: it drops every entry naming the
// pattern, prefixed or not.
func (t *toggle) topLevel(obj *jsjson.Object) {
	pattern := t.r.Path
	if t.r.Source != "builtin" {
		pattern = relative(t.baseDir(), t.r.Path)
	}
	current := obj.Value().Get(t.r.Type)
	var kept []jsjson.Value
	for i := range arrayLen(current) {
		e := current.Index(i)
		if target, _ := patternTarget(e); target == pattern {
			continue
		}
		kept = append(kept, e)
	}
	obj.Set(t.r.Type, jsjson.Array(append(kept, t.entry(pattern))...))
}

// baseDir is pi config's base for a top-level user resource's pattern.
func (t *toggle) baseDir() string {
	if t.r.BaseDir != "" {
		return t.r.BaseDir
	}
	return t.agentDir
}

// inPackage is togglePackageResource for a package's resource: the
// package's entry in packages becomes an object if it was a string, and
// its array for the type gets the new entry in place of any naming the
// same pattern. It reports false when no entry names the package.
func (t *toggle) inPackage(obj *jsjson.Object) bool {
	pkgs := obj.Value().Get("packages")
	idx := -1
	for i := range arrayLen(pkgs) {
		if packageSource(pkgs.Index(i)) == t.r.Source {
			idx = i
			break
		}
	}
	if idx < 0 {
		return false
	}
	po := packageObject(pkgs.Index(idx))
	pattern, kept := t.packagePatterns(po)
	po.Set(t.r.Type, jsjson.Array(append(kept, t.entry(pattern))...))
	list := make([]jsjson.Value, arrayLen(pkgs))
	for i := range list {
		list[i] = pkgs.Index(i)
	}
	list[idx] = po.Value()
	obj.Set("packages", jsjson.Array(list...))
	return true
}

// packageObject is a packages entry as an object: a string entry becomes
// {"source": ...}.
func packageObject(pkg jsjson.Value) jsjson.Object {
	var po jsjson.Object
	if pkg.Kind() == jsjson.StringKind {
		po.Set("source", pkg)
	} else {
		po = pkg.Object()
	}
	return po
}

// packagePatterns is the resource's pattern, relative to its base folder
// (its own folder when it has none), and the entries of its type's array
// in the package object po that are not about it.
func (t *toggle) packagePatterns(po jsjson.Object) (pattern string, kept []jsjson.Value) {
	base := t.r.BaseDir
	if base == "" {
		base = filepath.Dir(t.r.Path)
	}
	pattern = relative(base, t.r.Path)
	current := po.Value().Get(t.r.Type)
	for i := range arrayLen(current) {
		if target, _ := patternTarget(current.Index(i)); target != pattern {
			kept = append(kept, current.Index(i))
		}
	}
	return pattern, kept
}

// packageSource is a packages entry's source: the string, or its object's.
func packageSource(v jsjson.Value) string {
	if v.Kind() == jsjson.ObjectKind {
		v = v.Get("source")
	}
	if v.Kind() != jsjson.StringKind {
		return ""
	}
	return v.Str()
}

// isLocalSource is pi's isLocalPath: a source that is not npm:, git: or
// a URL.
func isLocalSource(s string) bool {
	for _, p := range []string{"npm:", "git:", "github:", "http:", "https:", "ssh:"} {
		if strings.HasPrefix(s, p) {
			return false
		}
	}
	return true
}

func resolveFrom(base, p string) string {
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "~/") {
		return p
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// patternTarget is an entry without its !, + or - prefix, and whether it
// had one; a non-string entry names nothing.
func patternTarget(v jsjson.Value) (string, bool) {
	if v.Kind() != jsjson.StringKind {
		return "\x00", false
	}
	s := v.Str()
	if s != "" && strings.ContainsRune("!+-", rune(s[0])) {
		return s[1:], true
	}
	return s, false
}

// arrayLen is v's length when it is an array (pi's `?? []`), else 0.
func arrayLen(v jsjson.Value) int {
	if v.Kind() != jsjson.ArrayKind {
		return 0
	}
	return v.Len()
}

// relative is Node's path.relative for absolute paths.
func relative(from, to string) string {
	r, err := filepath.Rel(from, to)
	if err != nil || r == "." {
		if r == "." {
			return ""
		}
		return to
	}
	return r
}
