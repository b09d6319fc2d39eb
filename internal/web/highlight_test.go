package web

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

// renderHighlight is JavaScript that renders highlight.js's output for
// code and a language (or file name) into a <code> and answers its HTML,
// its text and its element count. A name ending in .pidiff is a pi edit
// diff of the file named before it (diffLines).
const renderHighlight = `(async (code, name) => {
  const [hl, p] = await Promise.all([import('/js/highlight.js'), import('preact')]);
  const el = document.createElement('code');
  const kids = name.endsWith('.pidiff') ? hl.diffLines(code, name.slice(0, -7)) : hl.highlight(code, name);
  p.render(p.h('code', null, kids), el);
  const c = el.firstChild;
  return {html: c.innerHTML, text: c.textContent, spans: c.querySelectorAll('*').length,
    others: c.querySelectorAll(':not(span)').length, max: hl.MAX_SPANS, maxChars: hl.MAX_CHARS};
})`

type highlighted struct {
	HTML     string `json:"html"`
	Text     string `json:"text"`
	Spans    int    `json:"spans"`
	Others   int    `json:"others"`
	Max      int    `json:"max"`
	MaxChars int    `json:"maxChars"`
}

func highlightIn(t *testing.T, r *rig, code, name string) highlighted {
	t.Helper()
	return eval[highlighted](t, r.browser, fmt.Sprintf(renderHighlight+`(%s, %s)`, mustJSON(code), mustJSON(name)))
}

// testHighlightGolden highlights every file under testdata/highlight by
// its name and compares the HTML with name.html; the text must be the
// input exactly, and only spans may be made.
func testHighlightGolden(t *testing.T, r *rig) {
	files, _ := filepath.Glob("testdata/highlight/*")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.html") {
			continue
		}
		n++
		src := testkit.ReadFile(t, f)
		h := highlightIn(t, r, string(src), filepath.Base(f))
		text := string(src)
		if strings.HasSuffix(f, "diff") { // one block per line, without the last newline
			text = strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "")
		}
		if h.Text != text {
			t.Errorf("%s: highlighting changed the text:\n%q\nwant\n%q", f, h.Text, text)
		}
		if h.Others != 0 || h.Spans == 0 {
			t.Errorf("%s: %d spans, %d other elements", f, h.Spans, h.Others)
		}
		testkit.Golden(t, f+".golden.html", h.HTML+"\n")
		checkSafe(t, f, h.HTML)
	}
	if n < 15 {
		t.Errorf("only %d highlight samples", n)
	}
}

// testHighlightBounds checks that big inputs cost bounded work: over
// MAX_CHARS the code stays text, and no input makes more than MAX_SPANS
// spans; hostile inputs (unterminated strings and comments, long runs of
// one opener) keep their text.
func testHighlightBounds(t *testing.T, r *rig) {
	small := highlightIn(t, r, "x := 1", "a.go")
	line := "func f() { return \"s\" } // c\n"
	big := strings.Repeat(line, small.MaxChars/len(line)+10)
	if h := highlightIn(t, r, big, "a.go"); h.Spans != 0 || h.Text != big {
		t.Errorf("input over MAX_CHARS: %d spans", h.Spans)
	}
	under := big[:small.MaxChars-100]
	if h := highlightIn(t, r, under, "a.go"); h.Spans > h.Max+1 || h.Spans < h.Max/2 || h.Text != under {
		t.Errorf("input under MAX_CHARS: %d spans (max %d), text kept %v", h.Spans, h.Max, h.Text == under)
	}
	units := []string{`"`, "/*", "<a ", "'a", `r#"`, "`", "#", "- a: ", "${", `"""`, "[", "**", ".a", "<!--", "```"}
	langs := []string{"go", "ts", "py", "sh", "rs", "c", "css", "json", "yaml", "md", "html", "toml", "sql", "diff"}
	bad := eval[[]string](t, r.browser, fmt.Sprintf(`(async (units, langs) => {
		const [hl, p] = await Promise.all([import('/js/highlight.js'), import('preact')]);
		const bad = [];
		for (const u of units) {
			const code = u.repeat(Math.floor(10000 / u.length));
			for (const l of langs) {
				const el = document.createElement('code');
				p.render(p.h('code', null, hl.highlight(code, 'x.' + l)), el);
				const n = el.querySelectorAll('span').length;
				if (el.textContent !== code || n > hl.MAX_SPANS + 1) bad.push(JSON.stringify(u) + ' as ' + l + ': ' + n + ' spans');
			}
		}
		return bad;
	})(%s, %s)`, mustJSON(units), mustJSON(langs)))
	for _, b := range bad {
		t.Error(b)
	}
}
