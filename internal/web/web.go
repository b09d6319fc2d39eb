// Package web serves piweb's browser app: an index.html, plain ES modules
// and a stylesheet, with Preact, htm and @preact/signals vendored under
// static/vendor. There is no build step; the files are embedded so that the
// binary is self-contained, and served from disk with -dev so that a reload
// shows an edit.
//
// The vendored libraries are pinned by vendor/package-lock.json and copied
// by vendor/refresh.sh (npm ci, then the .mjs builds into static/vendor);
// the copies are committed, so building piweb never needs Node. An import
// map in index.html resolves the bare names; its hash is the only inline
// script the Content-Security-Policy allows. The served index.html preloads
// every module the app imports, found by following the imports themselves
// (modgraph.go), and the import graph has no cycles (TestModuleGraph).
//
// The modules under static/js, one job each: api.js (every API call and
// event stream), state.js (signals and the router: /s/{id}?leaf=ID#entry,
// /usage), view.js (the open session: pages of pi's context loaded from the
// leaf backwards, expanded compactions, live appends), conversation.js (the
// windowed message list), message.js (each role and block, tool calls
// paired with results), rowactions.js (the line under each message:
// sibling branches < 1/2 >, copy, label, and the chat's actions), labels.js
// (set, change, clear a label from a message or the tree), markdown.js,
// lazylines.js (an output of thousands of lines as a virtual list),
// highlight.js (with its languages in langs.js), sidebar.js, tree.js,
// search.js, header.js, files.js, terminal.js (the Terminal panel and page,
// xterm.js loaded on first use) with cspstyle.js (its inline styles through
// the CSSOM, so the CSP stays strict), usage.js, app.js (layout and keys),
// panels.js (the registry of a session's side panels: a panel is its module
// and one line there), panelfit.js and panelsize.js (a panel's width: drawn
// over the conversation rather than squeezing it), sidebarbutton.js (every
// header's button that shows the sidebar), theme.js (the theme switch; the
// classic script static/theme.js sets the theme before the first paint),
// icons.js (every glyph and drawing the page shows),
// a11y.js (the shortcuts list, the focus trap's step, what the live region
// says), dialogfocus.js (the one helper by which dialogs hold and return
// the focus), roving.js (arrow keys for the menus, the tree and the tab
// lists) and shortcuts.js (the dialog ? opens).
// No line of these scripts is longer than 120 characters (TestJSLineLength).
//
// Markdown is parsed in the browser by markdown-it (vendored, raw HTML
// off, linear time) and markdown.js turns its tokens into Preact elements,
// never HTML strings: text always ends up in text nodes, so no HTML from a
// message can run, links keep only http(s) and mailto, and no sanitizer is
// needed. Rendering on the client keeps the
// API returning pi's messages unchanged, lets a streamed answer (part 2)
// re-render only its last block, and costs nothing on the server for
// sessions of 10,000 messages, of which only the visible pages are rendered.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"regexp"
	"strings"
	"time"
)

//go:embed static
var embedded embed.FS

// Handler returns the handler for the app, to be mounted at "/" after the
// API routes. With dev set it reads the files from dir (the static folder of
// a checkout, default internal/web/static) on every request; otherwise it
// serves the embedded copy. Paths that are not files, such as /s/{id}, get
// index.html so that the app's own router can show them after a reload.
func Handler(dev bool, dir string) http.Handler {
	if dev {
		if dir == "" {
			dir = "internal/web/static"
		}
		return &handler{fsys: os.DirFS(dir), dev: true}
	}
	sub, err := fs.Sub(embedded, "static")
	if err != nil {
		panic(fmt.Sprintf("web: embedded static folder: %v", err))
	}
	h := &handler{fsys: sub, started: time.Now(), versions: fileVersions(sub)}
	if index, err := fs.ReadFile(sub, "index.html"); err == nil {
		h.index = h.versions.index(withPreloads(sub, index))
	}
	return h
}

type handler struct {
	fsys    fs.FS
	dev     bool
	started time.Time
	index   []byte // the embedded index.html with its preloads, read once

	// versions tags the embedded scripts and styles (versions.go); nil
	// with dev, whose files change on disk.
	versions versions
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if strings.HasPrefix(name, "api/") || name == "api" {
		http.NotFound(w, r)
		return
	}
	if name == "" || name == "index.html" || isAppRoute(name) {
		h.serveIndex(w, r)
		return
	}
	data, err := fs.ReadFile(h.fsys, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h.serveFile(w, r, name, data)
}

// isAppRoute reports whether name is a route of the app rather than a file:
// anything without an extension in its last element.
func isAppRoute(name string) bool {
	return !strings.Contains(path.Base(name), ".")
}

// serveIndex serves index.html with a modulepreload link for every module
// the app imports (modgraph.go), generated from the modules themselves so
// that the list is never out of date.
func (h *handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	data := h.index
	if data == nil {
		index, err := fs.ReadFile(h.fsys, "index.html")
		if err != nil {
			http.Error(w, "index.html missing", http.StatusInternalServerError)
			return
		}
		data = withPreloads(h.fsys, index)
	}
	w.Header().Set("Content-Security-Policy", CSP(data))
	h.serveFile(w, r, "index.html", data)
}

func (h *handler) serveFile(w http.ResponseWriter, r *http.Request, name string, data []byte) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	if h.dev {
		hdr.Set("Cache-Control", "no-store")
	} else {
		// Revalidate every time: the ETag makes that a cheap 304, and an
		// upgraded binary is never mixed with stale modules. A versioned
		// URL of the file as it is (versions.go) never changes: kept.
		hdr.Set("ETag", `"`+tag(data)+`"`)
		hdr.Set("Cache-Control", "no-cache")
		if h.versions.current("/"+name, r.URL.Query().Get("v")) {
			hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
		}
	}
	hdr.Set("Content-Type", contentType(name))
	http.ServeContent(w, r, name, h.started, bytes.NewReader(data))
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".json":
		return "application/json"
	case ".webmanifest":
		return "application/manifest+json"
	}
	return "text/plain; charset=utf-8"
}

var importMapRE = regexp.MustCompile(`(?s)<script type="importmap">(.*?)</script>`)

// CSP returns the Content-Security-Policy for the given index.html: scripts
// only from this origin plus the inline import map, allowed by its hash
// (browsers cannot load an import map from a file). Images may be data: and
// blob: URLs because pi stores images as base64. Nothing else inline runs.
func CSP(index []byte) string {
	script := "'self'"
	if m := importMapRE.FindSubmatch(index); m != nil {
		sum := sha256.Sum256(m[1])
		script += " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'self'; script-src " + script + "; style-src 'self'; " +
		"img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}
