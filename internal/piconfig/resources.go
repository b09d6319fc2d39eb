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

// SetResourceEnabled enables or disables one resource exactly as pi
// 1.6.0's `pi config` does, in the settings file of the resource's own
// scope: a user resource in the global settings.json (pi config's global
// mode: toggleTopLevelResource, togglePackageResource), a project one in
// cwd's .pi/settings.json (its project mode's load/unload override, which
// needs pi's trust). It replaces any +, - or ! entry for the resource in
// the key's array (for a package, the array of the package's object
// entry, a string entry becoming {"source": ...}) with "+pattern" or
// "-pattern", the pattern relative to the resource's base folder. The
// file is written like UpdateSettings writes it; a resource whose
// package settings no longer name is left alone.
func (s *Store) SetResourceEnabled(cwd string, trusted bool, r ResourceRef, enabled bool) error {
	if !resourceTypes[r.Type] || r.Path == "" {
		return invalidf("unknown resource type %q", r.Type)
	}
	scopeCwd := ""
	if r.Scope == "project" {
		if cwd == "" || !trusted {
			return ErrUntrusted
		}
		scopeCwd = cwd
	}
	t := toggle{r: r, enabled: enabled, agentDir: s.AgentDir, cwd: cwd}
	path := s.settingsPath(scopeCwd)
	return s.update(path, path, 0o644, false, func(d *doc) ([]byte, error) {
		migrateSettings(&d.obj)
		if r.Origin == "package" {
			if !t.inPackage(&d.obj) {
				return nil, nil
			}
		} else {
			t.topLevel(&d.obj)
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

func (t *toggle) project() bool { return t.r.Scope == "project" }

// scopeDir is pi config's getTopLevelBaseDir for the resource's scope.
func (t *toggle) scopeDir() string {
	if t.project() {
		return filepath.Join(t.cwd, ".pi")
	}
	return t.agentDir
}

// entry is the new "+pattern" or "-pattern".
func (t *toggle) entry(pattern string) jsjson.Value {
	if t.enabled {
		return jsjson.String("+" + pattern)
	}
	return jsjson.String("-" + pattern)
}

// topLevel is toggleTopLevelResource (user scope) and
// setProjectTopLevelOverride (project scope): the user form drops every
// entry naming the pattern, prefixed or not; the project form drops
// prefixed entries naming any of the resource's patterns.
func (t *toggle) topLevel(obj *jsjson.Object) {
	pattern := t.r.Path
	if t.r.Source != "builtin" {
		pattern = relative(t.baseDir(), t.r.Path)
	}
	names := map[string]bool{pattern: true}
	if t.project() {
		names[t.r.Path] = true
		names[relative(t.scopeDir(), t.r.Path)] = true
	}
	current := obj.Value().Get(t.r.Type)
	var kept []jsjson.Value
	for i := range arrayLen(current) {
		e := current.Index(i)
		target, prefixed := patternTarget(e)
		if names[target] && (prefixed || !t.project()) {
			continue
		}
		kept = append(kept, e)
	}
	obj.Set(t.r.Type, jsjson.Array(append(kept, t.entry(pattern))...))
}

// baseDir is pi config's base for a top-level resource's pattern.
func (t *toggle) baseDir() string {
	if t.r.BaseDir != "" {
		return t.r.BaseDir
	}
	return t.scopeDir()
}

// inPackage is togglePackageResource (user scope) and
// setProjectPackageOverride (project scope) for a package's resource:
// the package's entry in packages becomes an object if it was a string,
// and its array for the type gets the new entry in place of any naming
// the same pattern. It reports false when no entry names the package.
func (t *toggle) inPackage(obj *jsjson.Object) bool {
	pkgs := obj.Value().Get("packages")
	idx := -1
	for i := range arrayLen(pkgs) {
		if t.samePackage(packageSource(pkgs.Index(i))) {
			idx = i
			break
		}
	}
	if idx < 0 {
		return false
	}
	pkg := pkgs.Index(idx)
	var po jsjson.Object
	if pkg.Kind() == jsjson.StringKind {
		po.Set("source", pkg)
	} else {
		po = pkg.Object()
	}
	base := t.r.BaseDir
	if base == "" {
		base = filepath.Dir(t.r.Path)
	}
	pattern := relative(base, t.r.Path)
	current := po.Value().Get(t.r.Type)
	var kept []jsjson.Value
	for i := range arrayLen(current) {
		if target, _ := patternTarget(current.Index(i)); target != pattern {
			kept = append(kept, current.Index(i))
		}
	}
	po.Set(t.r.Type, jsjson.Array(append(kept, t.entry(pattern))...))
	list := make([]jsjson.Value, arrayLen(pkgs))
	for i := range list {
		list[i] = pkgs.Index(i)
	}
	list[idx] = po.Value()
	obj.Set("packages", jsjson.Array(list...))
	return true
}

// samePackage is pi's match of a settings entry's source: equal, or in
// the project form (packageSourceStringMatches) two local paths that
// resolve to the same folder.
func (t *toggle) samePackage(src string) bool {
	if src == t.r.Source {
		return true
	}
	if !t.project() || !isLocalSource(src) || !isLocalSource(t.r.Source) {
		return false
	}
	return resolveFrom(t.scopeDir(), src) == resolveFrom(t.scopeDir(), t.r.Source)
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
