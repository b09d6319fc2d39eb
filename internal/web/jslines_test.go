package web

import (
	"bufio"
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxJSLine is the longest line the app's own scripts may have, in
// characters: a line longer than that is read by scrolling sideways.
const maxJSLine = 120

// TestJSLineLength checks that no line of the app's own scripts (static/js,
// static/chat, the service worker and theme.js; not the vendored libraries) is longer
// than maxJSLine characters.
func TestJSLineLength(t *testing.T) {
	fsys := staticFS(t)
	files := append(appModules(t, fsys), "/sw.js", "/theme.js")
	for _, name := range files {
		b, err := fs.ReadFile(fsys, strings.TrimPrefix(name, "/"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for n := 1; sc.Scan(); n++ {
			if l := utf8.RuneCount(sc.Bytes()); l > maxJSLine {
				t.Errorf("%s:%d is %d characters long, more than %d", name, n, l, maxJSLine)
			}
		}
	}
}
