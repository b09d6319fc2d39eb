package web

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// importRE finds the static imports and re-exports of an ES module: a
// statement that starts a line or follows a semicolon (minified vendor
// code), with an optional clause of names before `from`. Dynamic import()
// is not matched: only terminal.js uses it, to load xterm.js on first use.
var importRE = regexp.MustCompile(`(?m)(?:^|;)[ \t]*(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?['"]([^'"\n]+)['"]`)

// entryRE finds index.html's entry module.
var entryRE = regexp.MustCompile(`<script type="module" src="([^"]+)"></script>`)

// preloadMarker is the line of index.html that the served page replaces
// with a modulepreload link for every module the entry imports, directly
// or not, so that the browser fetches them all at once instead of one
// level of imports at a time.
const preloadMarker = "<!-- modulepreloads -->"

// modGraph is the import graph of the app's modules, by URL path.
type modGraph struct {
	entry string
	order []string            // every module reached from entry, each after its imports
	deps  map[string][]string // module -> the modules it imports
}

// readModGraph reads index.html's import map and entry from fsys (the
// static folder) and follows every import from the entry.
func readModGraph(fsys fs.FS) (*modGraph, error) {
	index, err := fs.ReadFile(fsys, "index.html")
	if err != nil {
		return nil, err
	}
	var im struct {
		Imports map[string]string `json:"imports"`
	}
	if m := importMapRE.FindSubmatch(index); m != nil {
		if err := json.Unmarshal(m[1], &im); err != nil {
			return nil, fmt.Errorf("index.html import map: %w", err)
		}
	}
	e := entryRE.FindSubmatch(index)
	if e == nil {
		return nil, fmt.Errorf("index.html has no module script")
	}
	g := &modGraph{entry: string(e[1]), deps: map[string][]string{}}
	return g, g.visit(fsys, im.Imports, g.entry)
}

func (g *modGraph) visit(fsys fs.FS, imports map[string]string, mod string) error {
	if _, ok := g.deps[mod]; ok {
		return nil
	}
	src, err := fs.ReadFile(fsys, strings.TrimPrefix(mod, "/"))
	if err != nil {
		return fmt.Errorf("module %s: %w", mod, err)
	}
	var deps []string
	for _, m := range importRE.FindAllSubmatch(src, -1) {
		dep, err := resolveImport(imports, mod, string(m[1]))
		if err != nil {
			return err
		}
		if !slices.Contains(deps, dep) {
			deps = append(deps, dep)
		}
	}
	g.deps[mod] = deps
	for _, d := range deps {
		if err := g.visit(fsys, imports, d); err != nil {
			return err
		}
	}
	g.order = append(g.order, mod)
	return nil
}

// resolveImport turns an import specifier of module from into a URL path:
// relative ones against from, bare ones through the import map.
func resolveImport(imports map[string]string, from, spec string) (string, error) {
	switch {
	case strings.HasPrefix(spec, "/"):
		return path.Clean(spec), nil
	case strings.HasPrefix(spec, "./"), strings.HasPrefix(spec, "../"):
		return path.Join(path.Dir(from), spec), nil
	}
	if u, ok := imports[spec]; ok {
		return u, nil
	}
	return "", fmt.Errorf("module %s imports %q, which the import map does not name", from, spec)
}

// cycle returns one import cycle as a list of modules (the first repeated
// at the end), or nil when the graph has none.
func (g *modGraph) cycle() []string {
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var stack []string
	var walk func(string) []string
	walk = func(m string) []string {
		state[m] = visiting
		stack = append(stack, m)
		for _, d := range g.deps[m] {
			switch state[d] {
			case visiting:
				i := slices.Index(stack, d)
				return append(slices.Clone(stack[i:]), d)
			case 0:
				if c := walk(d); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[m] = done
		return nil
	}
	keys := make([]string, 0, len(g.deps))
	for k := range g.deps {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if state[k] == 0 {
			if c := walk(k); c != nil {
				return c
			}
		}
	}
	return nil
}

// preloads is the modulepreload links for every module but the entry,
// each module after the ones it imports.
func (g *modGraph) preloads() string {
	var b strings.Builder
	for _, m := range g.order {
		if m != g.entry {
			fmt.Fprintf(&b, "<link rel=\"modulepreload\" href=\"%s\">\n", m)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// withPreloads returns index.html with its preload marker replaced by the
// graph's preload links; index is returned unchanged when the graph cannot
// be read (a broken checkout in -dev), since the page still loads without.
func withPreloads(fsys fs.FS, index []byte) []byte {
	g, err := readModGraph(fsys)
	if err != nil {
		return index
	}
	return []byte(strings.Replace(string(index), preloadMarker, g.preloads(), 1))
}
