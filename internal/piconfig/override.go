package piconfig

import (
	"path/filepath"
	"slices"

	"piweb/internal/jsjson"
)

// Override states of a resource in one project, as `pi config --local`
// cycles them: inherit (no entry), load (+) and unload (-).
const (
	OverrideInherit = "inherit"
	OverrideLoad    = "load"
	OverrideUnload  = "unload"
)

// SetProjectOverride sets a resource's override in a trusted project's
// .pi/settings.json exactly as `pi config --local` does
// (setProjectResourceOverride): inherited says the resource is one the
// global resolution lists (a user resource, or one pi resolves without
// the project too). A top-level resource gets "+pattern" or "-pattern" in
// the project's array for its type (an inherited file first named by its
// path, so that the project loads it); a package resource gets it in its
// package's project entry, which is made as {"source": ..., "autoload":
// false} when the project has none. Inherit removes the override.
func (s *Store) SetProjectOverride(cwd string, trusted bool, r ResourceRef, inherited bool, state string) error {
	if !resourceTypes[r.Type] || r.Path == "" {
		return invalidf("unknown resource type %q", r.Type)
	}
	if state != OverrideInherit && state != OverrideLoad && state != OverrideUnload {
		return invalidf("unknown override %q", state)
	}
	if cwd == "" || !trusted {
		return ErrUntrusted
	}
	o := &override{toggle: toggle{r: r, agentDir: s.AgentDir, cwd: cwd, enabled: state == OverrideLoad}, inherited: inherited, state: state}
	return s.writeSwitch(ProjectSettingsPath(cwd), r, o)
}

// override is one project override being written.
type override struct {
	toggle
	inherited bool
	state     string
}

func (o *override) projectDir() string { return filepath.Join(o.cwd, ".pi") }

// itemDir is pi config's getTopLevelBaseDir of the resource's own scope.
func (o *override) itemDir() string {
	if o.r.Scope == "project" {
		return o.projectDir()
	}
	return o.agentDir
}

// projectPattern is getResourcePatternForScope(item, "project").
func (o *override) projectPattern() string {
	if o.r.Scope != "project" || o.r.Source == "builtin" {
		return o.r.Path
	}
	base := o.r.BaseDir
	if base == "" {
		base = o.projectDir()
	}
	return relative(base, o.r.Path)
}

// patterns is getTopLevelOverridePatterns(item, "project").
func (o *override) patterns() map[string]bool {
	p := map[string]bool{o.projectPattern(): true, o.r.Path: true, relative(o.projectDir(), o.r.Path): true}
	if o.r.BaseDir != "" {
		p[relative(o.r.BaseDir, o.r.Path)] = true
	}
	return p
}

// topLevel is setProjectTopLevelOverride.
func (o *override) topLevel(obj *jsjson.Object) {
	pattern := o.projectPattern()
	if o.inherited {
		pattern = o.r.Path
	}
	names := o.patterns()
	current := obj.Value().Get(o.r.Type)
	var kept []jsjson.Value
	for i := range arrayLen(current) {
		e := current.Index(i)
		target, prefixed := patternTarget(e)
		if (prefixed && names[target]) || (o.state == OverrideInherit && o.inherited && target == pattern) {
			continue
		}
		kept = append(kept, e)
	}
	if o.state != OverrideInherit {
		if o.inherited && o.r.Source != "builtin" && !slices.ContainsFunc(kept, func(v jsjson.Value) bool {
			return v.Kind() == jsjson.StringKind && v.Str() == pattern
		}) {
			kept = append(kept, jsjson.String(pattern))
		}
		kept = append(kept, o.entry(pattern))
	}
	obj.Set(o.r.Type, jsjson.Array(kept...))
}

// inPackage is setProjectPackageOverride.
func (o *override) inPackage(obj *jsjson.Object) bool {
	pkgs := obj.Value().Get("packages")
	list := make([]jsjson.Value, arrayLen(pkgs))
	idx := -1
	for i := range list {
		list[i] = pkgs.Index(i)
		if idx < 0 && o.matches(packageSource(list[i])) {
			idx = i
		}
	}
	if idx < 0 {
		if o.state == OverrideInherit {
			return false
		}
		list = append(list, o.newEntry())
		idx = len(list) - 1
	}
	po := packageObject(list[idx])
	pattern, kept := o.packagePatterns(po)
	if o.state != OverrideInherit {
		kept = append(kept, o.entry(pattern))
	}
	if len(kept) > 0 {
		po.Set(o.r.Type, jsjson.Array(kept...))
	} else {
		po.Set(o.r.Type, jsjson.Value{})
	}
	list = o.settle(list, idx, po)
	obj.Set("packages", jsjson.Array(list...))
	return true
}

// settle puts the package entry back: an object while it filters, else
// its source string, or nothing for an override entry (autoload false).
func (o *override) settle(list []jsjson.Value, idx int, po jsjson.Object) []jsjson.Value {
	v := po.Value()
	for t := range resourceTypes {
		if v.Get(t).Kind() != jsjson.UndefinedKind {
			list[idx] = v
			return list
		}
	}
	if a := v.Get("autoload"); a.Kind() == jsjson.BoolKind && !a.Bool() {
		return slices.Delete(list, idx, idx+1)
	}
	list[idx] = v.Get("source")
	return list
}

// matches is packageSourceStringMatches(item's source in its scope,
// entry's source in the project).
func (o *override) matches(src string) bool {
	if src == o.r.Source {
		return true
	}
	if !isLocalSource(src) || !isLocalSource(o.r.Source) {
		return false
	}
	return resolveFrom(o.itemDir(), o.r.Source) == resolveFrom(o.projectDir(), src)
}

// newEntry is createPackageOverrideSource.
func (o *override) newEntry() jsjson.Value {
	src := o.r.Source
	if isLocalSource(src) {
		src = relative(o.projectDir(), resolveFrom(o.itemDir(), src))
		if src == "" {
			src = "."
		}
	}
	var e jsjson.Object
	e.Set("source", jsjson.String(src))
	e.Set("autoload", jsjson.Bool(false))
	return e.Value()
}

// ProjectOverride is a resource's override state in the project at cwd
// as `pi config --local` shows it (getProjectOverrideState), read from
// the project's settings.json: the last entry naming the resource
// decides (a -, ! entry unloads, a + or plain one loads); an empty type
// array of a package entry that autoloads unloads everything.
func (s *Store) ProjectOverride(cwd string, r ResourceRef) string {
	d, err := readDoc(ProjectSettingsPath(cwd))
	if err != nil {
		return OverrideInherit
	}
	migrateSettings(&d.obj)
	o := override{toggle: toggle{r: r, agentDir: s.AgentDir, cwd: cwd}}
	settings := d.obj.Value()
	if r.Origin != "package" {
		return overrideState(settings.Get(r.Type), o.patterns(), false)
	}
	pkgs := settings.Get("packages")
	for i := range arrayLen(pkgs) {
		pkg := pkgs.Index(i)
		if !o.matches(packageSource(pkg)) {
			continue
		}
		entries := pkg.Get(r.Type)
		if pkg.Kind() != jsjson.ObjectKind || entries.Kind() == jsjson.UndefinedKind {
			return OverrideInherit
		}
		base := r.BaseDir
		if base == "" {
			base = filepath.Dir(r.Path)
		}
		autoload := pkg.Get("autoload")
		return overrideState(entries, map[string]bool{relative(base, r.Path): true}, !(autoload.Kind() == jsjson.BoolKind && !autoload.Bool()))
	}
	return OverrideInherit
}

// overrideState is getOverrideStateFromEntries.
func overrideState(entries jsjson.Value, names map[string]bool, emptyIsUnload bool) string {
	if entries.Kind() == jsjson.ArrayKind && entries.Len() == 0 && emptyIsUnload {
		return OverrideUnload
	}
	state := OverrideInherit
	for i := range arrayLen(entries) {
		target, prefixed := patternTarget(entries.Index(i))
		if !names[target] {
			continue
		}
		state = OverrideLoad
		if prefixed && (entries.Index(i).Str()[0] == '!' || entries.Index(i).Str()[0] == '-') {
			state = OverrideUnload
		}
	}
	return state
}
