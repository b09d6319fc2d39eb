package web

import (
	"io/fs"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

func staticFS(t *testing.T) fs.FS {
	t.Helper()
	sub, err := fs.Sub(embedded, "static")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// appModules lists the app's own modules (static/js and static/chat).
func appModules(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"js", "chat"} {
		ents, err := fs.ReadDir(fsys, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".js") {
				out = append(out, "/"+dir+"/"+e.Name())
			}
		}
	}
	return out
}

// TestModuleGraph checks that the app's modules import each other without
// a cycle (a cycle makes a module's imports undefined while it runs, and
// ties components to each other's state) and that every module is reached
// from the entry, so that the generated preloads name it.
func TestModuleGraph(t *testing.T) {
	fsys := staticFS(t)
	g, err := readModGraph(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if c := g.cycle(); c != nil {
		t.Errorf("import cycle: %s", strings.Join(c, " -> "))
	}
	for _, m := range appModules(t, fsys) {
		if _, ok := g.deps[m]; !ok {
			t.Errorf("%s is not imported by the app (dead module, or a dynamic import the preloads miss)", m)
		}
	}
}

// TestModuleGraphCycle checks that the cycle finder finds one.
func TestModuleGraphCycle(t *testing.T) {
	g := &modGraph{deps: map[string][]string{"/a.js": {"/b.js"}, "/b.js": {"/c.js"}, "/c.js": {"/a.js"}, "/d.js": nil}}
	if c := g.cycle(); len(c) != 4 || c[0] != c[3] {
		t.Errorf("cycle = %v, want a -> b -> c -> a", c)
	}
	g = &modGraph{deps: map[string][]string{"/a.js": {"/b.js", "/c.js"}, "/b.js": {"/c.js"}, "/c.js": nil}}
	if c := g.cycle(); c != nil {
		t.Errorf("cycle = %v in a graph without one", c)
	}
}

// apiURLRE finds a string literal that starts an API path.
var apiURLRE = regexp.MustCompile("['\"`]/api(/|['\"`?])")

// TestURLsOnlyInAPI checks that no module but js/api.js builds an API URL,
// so that every request and stream the page makes is in one file.
func TestURLsOnlyInAPI(t *testing.T) {
	fsys := staticFS(t)
	for _, m := range appModules(t, fsys) {
		if m == "/js/api.js" {
			continue
		}
		src, err := fs.ReadFile(fsys, strings.TrimPrefix(m, "/"))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if apiURLRE.MatchString(line) {
				t.Errorf("%s:%d builds an API URL outside api.js: %s", m, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestIndexPreloads checks that the served index.html preloads every module
// of the graph, and that the file itself keeps none by hand.
func TestIndexPreloads(t *testing.T) {
	fsys := staticFS(t)
	raw, err := fs.ReadFile(fsys, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `rel="modulepreload"`) || !strings.Contains(string(raw), preloadMarker) {
		t.Errorf("index.html should hold the marker %q and no modulepreload links of its own", preloadMarker)
	}
	g, err := readModGraph(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []bool{false, true} {
		h := Handler(dev, "static")
		if !dev {
			h = Handler(false, "")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		body := rec.Body.String()
		for _, m := range g.order {
			link := `<link rel="modulepreload" href="` + m + `">`
			if !dev {
				link = `<link rel="modulepreload" href="` + m + `?v=`
			}
			if (m == g.entry) == strings.Contains(body, link) {
				t.Errorf("dev=%v: preload of %s: present=%v", dev, m, strings.Contains(body, link))
			}
		}
		if strings.Contains(body, preloadMarker) {
			t.Errorf("dev=%v: the marker was served", dev)
		}
	}
	if _, err := os.Stat("static/index.html"); err != nil {
		t.Fatal(err)
	}
}
