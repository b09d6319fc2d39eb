package web

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

func get(t *testing.T, h http.Handler, method, path string, hdr ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Result()
}

func TestHandlerRoutes(t *testing.T) {
	h := Handler(false, "")
	tests := []struct {
		method, path string
		status       int
		typ          string
		body         string
	}{
		{"GET", "/", 200, "text/html", `<div id="app">`},
		{"GET", "/s/0195f3b2-aaaa", 200, "text/html", `<div id="app">`},
		{"GET", "/usage", 200, "text/html", `<div id="app">`},
		{"GET", "/js/app.js", 200, "text/javascript", "render("},
		{"GET", "/vendor/preact.mjs", 200, "text/javascript", "export"},
		{"GET", "/style.css", 200, "text/css", ":root"},
		{"GET", "/favicon.svg", 200, "image/svg+xml", "<svg"},
		{"HEAD", "/", 200, "text/html", ""},
		{"GET", "/missing.js", 404, "", ""},
		{"GET", "/api/nothing", 404, "", ""},
		{"GET", "/../web.go", 404, "", ""}, // cleaned to /web.go, which static/ does not hold
		{"POST", "/", 405, "", ""},
	}
	for _, tc := range tests {
		res := get(t, h, tc.method, tc.path)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != tc.status {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, res.StatusCode, tc.status)
			continue
		}
		if tc.typ != "" && !strings.HasPrefix(res.Header.Get("Content-Type"), tc.typ) {
			t.Errorf("%s: Content-Type %q", tc.path, res.Header.Get("Content-Type"))
		}
		if !strings.Contains(string(body), tc.body) {
			t.Errorf("%s: body lacks %q", tc.path, tc.body)
		}
		if tc.status == 200 && res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", tc.path)
		}
	}
}

// TestCSPAllowsOnlyTheImportMap checks that the policy's hash is the
// import map's, and that index.html has no other inline script.
func TestCSPAllowsOnlyTheImportMap(t *testing.T) {
	res := get(t, Handler(false, ""), "GET", "/")
	index, _ := io.ReadAll(res.Body)
	m := importMapRE.FindSubmatch(index)
	if m == nil {
		t.Fatal("no import map in index.html")
	}
	sum := sha256.Sum256(m[1])
	want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self' "+want+";") {
		t.Errorf("CSP %q lacks %s", csp, want)
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval"} {
		if strings.Contains(csp, bad) {
			t.Errorf("CSP allows %s", bad)
		}
	}
	scripts := regexp.MustCompile(`<script[^>]*>`).FindAll(index, -1)
	for _, s := range scripts {
		if !strings.Contains(string(s), `type="importmap"`) && !strings.Contains(string(s), "src=") {
			t.Errorf("inline script in index.html: %s", s)
		}
	}
}

func TestRevalidation(t *testing.T) {
	h := Handler(false, "")
	res := get(t, h, "GET", "/js/app.js")
	etag := res.Header.Get("ETag")
	if etag == "" || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q", etag, res.Header.Get("Cache-Control"))
	}
	if res := get(t, h, "GET", "/js/app.js", "If-None-Match", etag); res.StatusCode != 304 {
		t.Errorf("revalidation: %d, want 304", res.StatusCode)
	}
}

// TestVersionedURLs: the served index names the app's files by versioned
// URLs, which are kept for good while the file is the same; the import
// map sends every module's plain path and bare name there too.
func TestVersionedURLs(t *testing.T) {
	h := Handler(false, "")
	body, _ := io.ReadAll(get(t, h, "GET", "/").Body)
	entry := regexp.MustCompile(`<script type="module" src="(/js/app\.js\?v=([\w-]+))"></script>`).FindSubmatch(body)
	if entry == nil {
		t.Fatalf("entry not versioned:\n%s", body)
	}
	for _, want := range []string{`href="/style.css?v=`, `src="/theme.js?v=`, `rel="modulepreload" href="/js/api.js?v=`,
		`"preact": "/vendor/preact.mjs?v=`, `"/js/markdown.js": "/js/markdown.js?v=`, `href="/favicon.svg"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("index lacks %s", want)
		}
	}
	if strings.Contains(string(body), `"/sw.js"`) {
		t.Error("the service worker's URL is versioned")
	}
	tests := []struct{ path, cache string }{
		{string(entry[1]), "public, max-age=31536000, immutable"},
		{"/js/app.js?v=old", "no-cache"},
		{"/js/app.js", "no-cache"},
		{"/sw.js", "no-cache"},
	}
	for _, tc := range tests {
		res := get(t, h, "GET", tc.path)
		if res.StatusCode != 200 || res.Header.Get("Cache-Control") != tc.cache {
			t.Errorf("%s: %d, Cache-Control %q, want %q", tc.path, res.StatusCode, res.Header.Get("Cache-Control"), tc.cache)
		}
	}
}

// TestDevServesFromDisk edits a file and sees the change without a rebuild.
func TestDevServesFromDisk(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>one</p>"), 0o644)
	h := Handler(true, dir)
	if body, _ := io.ReadAll(get(t, h, "GET", "/s/x").Body); string(body) != "<p>one</p>" {
		t.Fatalf("dev index = %q", body)
	}
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>two</p>"), 0o644)
	res := get(t, h, "GET", "/")
	if body, _ := io.ReadAll(res.Body); string(body) != "<p>two</p>" {
		t.Errorf("dev index after edit = %q", body)
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("dev Cache-Control %q", res.Header.Get("Cache-Control"))
	}
}

// TestVendoredFilesMatchLock checks that static/vendor holds the versions
// package-lock.json pins, so a forgotten refresh.sh is caught without Node.
func TestVendoredFilesMatchLock(t *testing.T) {
	lock := testkit.ReadFile(t, "vendor/package-lock.json")
	versions := testkit.ReadFile(t, "static/vendor/VERSIONS")
	for _, line := range strings.Split(strings.TrimSpace(string(versions)), "\n") {
		name, ver, _ := strings.Cut(line, " ")
		re := regexp.MustCompile(`"node_modules/` + regexp.QuoteMeta(name) + `":\s*\{\s*"version":\s*"` + regexp.QuoteMeta(ver) + `"`)
		if !re.Match(lock) {
			t.Errorf("static/vendor has %s %s, package-lock.json does not; run vendor/refresh.sh", name, ver)
		}
	}
}
