package web

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// Versioned URLs (issue 24 item 5, decision 0047). The served index.html
// names every module, style sheet and script by /path?v=TAG, TAG taken
// from the file's bytes, and the answer to such a URL may be kept by the
// browser for a year: a reload of the app then takes its ~90 files from
// the browser's cache instead of asking the server about each (~90 round
// trips of revalidation, most of a reload's time before the first
// message). The import map sends every module's plain path to its
// versioned URL, so that relative imports (./api.js) and the tests'
// import('/js/markdown.js') reach the same module instance. An old URL
// (another TAG) is still served, revalidated as before.

// versions maps the URL path of each versioned file to its tag.
type versions map[string]string

// versioned says which files get a version: scripts and style sheets,
// but not the service worker, whose URL must stay the same.
func versioned(name string) bool {
	switch path.Ext(name) {
	case ".js", ".mjs", ".css":
		return name != "sw.js"
	}
	return false
}

// fileVersions tags every versioned file of fsys by its content.
func fileVersions(fsys fs.FS) versions {
	v := versions{}
	fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !versioned(name) {
			return nil
		}
		if data, err := fs.ReadFile(fsys, name); err == nil {
			v["/"+name] = tag(data)
		}
		return nil
	})
	return v
}

// tag is a short hash of data, for ETags and versions.
func tag(data []byte) string {
	sum := sha256.Sum256(data)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// url is the versioned URL of path p, or p when it has no version.
func (v versions) url(p string) string {
	if t, ok := v[p]; ok {
		return p + "?v=" + t
	}
	return p
}

// current reports whether the URL path p with query version q names the
// file as it is now (so it may be cached for good).
func (v versions) current(p, q string) bool {
	return q != "" && v[p] == q
}

var attrURLRE = regexp.MustCompile(`((?:src|href)=")(/[^"?#]+)(")`)

// index returns index.html with its import map and its src and href
// attributes naming versioned URLs.
func (v versions) index(index []byte) []byte {
	out := attrURLRE.ReplaceAllFunc(index, func(m []byte) []byte {
		s := attrURLRE.FindSubmatch(m)
		return []byte(string(s[1]) + v.url(string(s[2])) + string(s[3]))
	})
	m := importMapRE.FindSubmatchIndex(out)
	if m == nil {
		return out
	}
	imports, err := v.importMap(out[m[2]:m[3]])
	if err != nil {
		return out
	}
	return []byte(string(out[:m[2]]) + "\n" + imports + "\n" + string(out[m[3]:]))
}

// importMap returns the import map src with its targets versioned and an
// entry for every module's plain path.
func (v versions) importMap(src []byte) (string, error) {
	var im struct {
		Imports map[string]string `json:"imports"`
	}
	if err := json.Unmarshal(src, &im); err != nil {
		return "", err
	}
	if im.Imports == nil {
		im.Imports = map[string]string{}
	}
	for k, p := range im.Imports {
		im.Imports[k] = v.url(p)
	}
	for p := range v {
		if strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".mjs") {
			im.Imports[p] = v.url(p)
		}
	}
	b, err := json.MarshalIndent(im, "", "  ")
	return string(b), err
}
