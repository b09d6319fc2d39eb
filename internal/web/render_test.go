package web

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

// testRendering checks the browser-side renderers (markdown.js and
// highlight.js) in Chromium: golden files under testdata (go test -run
// TestReadingSearch/rendering -update rewrites them), safety, and the bounds
// that keep big inputs cheap.
func testRendering(t *testing.T, r *rig) {
	t.Run("markdown", func(t *testing.T) { testMarkdownGolden(t, r) })
	t.Run("markdown is CommonMark", func(t *testing.T) { testMarkdownCommonMark(t, r) })
	t.Run("markdown is linear", func(t *testing.T) { testMarkdownHostile(t, r) })
	t.Run("highlight", func(t *testing.T) { testHighlightGolden(t, r) })
	t.Run("highlight bounds", func(t *testing.T) { testHighlightBounds(t, r) })
}

// checkSafe fails for markup from the input that became elements.
func checkSafe(t *testing.T, name, got string) {
	t.Helper()
	for _, bad := range []string{"<script", "<img", "<iframe", "<div onclick", `href="javascript:`, `href="data:`} {
		if strings.Contains(got, bad) {
			t.Errorf("%s: output has %q", name, bad)
		}
	}
	if handler := regexp.MustCompile(`<[a-z]+[^>]*\son\w+=`).FindString(got); handler != "" {
		t.Errorf("%s: event handler attribute in %q", name, handler)
	}
}

// testMarkdownGolden renders testdata/markdown/*.md with the app's own
// renderer and compares the HTML with the .html golden files.
func testMarkdownGolden(t *testing.T, r *rig) {
	files, _ := filepath.Glob("testdata/markdown/*.md")
	if len(files) == 0 {
		t.Fatal("no markdown test files")
	}
	for _, f := range files {
		src := testkit.ReadFile(t, f)
		js := fmt.Sprintf(`Promise.all([import('/js/markdown.js'), import('preact')]).then(([md, p]) => {
			const el = document.createElement('div');
			p.render(p.h('div', null, md.markdown(%s)), el);
			return el.innerHTML.replace(/></g, '>\n<');
		})`, mustJSON(string(src)))
		got := eval[string](t, r.browser, js) + "\n"
		testkit.Golden(t, strings.TrimSuffix(f, ".md")+".html", got)
		checkSafe(t, f, got)
	}
}
