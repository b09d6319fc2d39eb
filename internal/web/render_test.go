package web

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// TestMarkdownGolden renders testdata/markdown/*.md with the app's own
// renderer in Chromium and compares the HTML with the .html golden files
// (go test -run TestMarkdownGolden -update rewrites them).
func TestMarkdownGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/markdown/*.md")
	if len(files) == 0 {
		t.Fatal("no markdown test files")
	}
	r := newRig(t)
	r.open(t, "/usage")
	r.waitJS(t, `document.querySelector('.usage')`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js := fmt.Sprintf(`Promise.all([import('/js/markdown.js'), import('preact')]).then(([md, p]) => {
			const el = document.createElement('div');
			p.render(p.h('div', null, md.markdown(%s)), el);
			return el.innerHTML.replace(/></g, '>\n<');
		})`, mustJSON(string(src)))
		got := eval[string](t, r.browser, js) + "\n"
		golden := strings.TrimSuffix(f, ".md") + ".html"
		if *update {
			os.WriteFile(golden, []byte(got), 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if got != string(want) {
			t.Errorf("%s: rendered HTML differs from %s:\n%s", f, golden, got)
		}
		for _, bad := range []string{"<script", "<img", "<iframe", "<div onclick", `href="javascript:`, `href="data:`} {
			if strings.Contains(got, bad) {
				t.Errorf("%s: output has %q", f, bad)
			}
		}
		if handler := regexp.MustCompile(`<[a-z]+[^>]*\son\w+=`).FindString(got); handler != "" {
			t.Errorf("%s: event handler attribute in %q", f, handler)
		}
	}
}
