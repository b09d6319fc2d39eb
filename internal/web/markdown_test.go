package web

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// commonMark holds examples of the CommonMark spec (0.31.2) with the HTML
// the spec gives for them, written without the line breaks between tags.
var commonMark = []struct{ src, want string }{
	{"*foo bar*", "<p><em>foo bar</em></p>"},
	{"a * foo bar*", "<p>a * foo bar*</p>"},
	{"foo*bar*", "<p>foo<em>bar</em></p>"},
	{"5*6*78", "<p>5<em>6</em>78</p>"},
	{"_foo bar_", "<p><em>foo bar</em></p>"},
	{"foo_bar_", "<p>foo_bar_</p>"},
	{"_foo_bar", "<p>_foo_bar</p>"},
	{"**foo bar**", "<p><strong>foo bar</strong></p>"},
	{"*foo**bar**baz*", "<p><em>foo<strong>bar</strong>baz</em></p>"},
	{"***strong emph***", "<p><em><strong>strong emph</strong></em></p>"},
	{"**foo*", "<p>*<em>foo</em></p>"},
	{"*foo**", "<p><em>foo</em>*</p>"},
	{"`foo`", "<p><code>foo</code></p>"},
	{"`` foo ` bar ``", "<p><code>foo ` bar</code></p>"},
	{"\\*not emphasized*", "<p>*not emphasized*</p>"},
	{"# foo", "<h1>foo</h1>"},
	{"#5 bolt", "<p>#5 bolt</p>"},
	{"Foo\n---\nbar", "<h2>Foo</h2><p>bar</p>"},
	{"- foo\n- bar\n+ baz", "<ul><li>foo</li><li>bar</li></ul><ul><li>baz</li></ul>"},
	{"1. foo\n2. bar\n3) baz", "<ol><li>foo</li><li>bar</li></ol><ol start=\"3\"><li>baz</li></ol>"},
	{"- a\n- b\n\n- c", "<ul><li><p>a</p></li><li><p>b</p></li><li><p>c</p></li></ul>"},
	{"> # Foo\n> bar\n> baz", "<blockquote><h1>Foo</h1><p>bar\nbaz</p></blockquote>"},
	{"foo  \nbar", "<p>foo<br>bar</p>"},
	{"&amp; &copy;", "<p>&amp; ©</p>"},
	{"<https://foo.bar.baz>", `<p><a href="https://foo.bar.baz">https://foo.bar.baz</a></p>`},
	{"<div>*x*</div>", "<p>&lt;div&gt;<em>x</em>&lt;/div&gt;</p>"}, // raw HTML is off: text, as with pi's own renderer
}

// testMarkdownCommonMark renders CommonMark examples with the app's
// renderer and compares the DOM with the spec's HTML (the app's link
// attributes removed).
func testMarkdownCommonMark(t *testing.T, r *rig) {
	srcs := make([]string, len(commonMark))
	for i, c := range commonMark {
		srcs[i] = c.src
	}
	got := eval[[]string](t, r.browser, fmt.Sprintf(`Promise.all([import('/js/markdown.js'), import('preact')]).then(([md, p]) =>
		%s.map((src) => { const el = document.createElement('div'); p.render(md.markdown(src), el); return el.innerHTML; }))`, mustJSON(srcs)))
	attrs := regexp.MustCompile(` target="_blank" rel="noopener noreferrer nofollow"`)
	for i, c := range commonMark {
		g := attrs.ReplaceAllString(strings.ReplaceAll(got[i], ">\n<", "><"), "")
		if g != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, g, c.want)
		}
	}
}

// hostileMarkdown is input that made the old hand-written parser
// quadratic: 128 KB of "**a " froze a tab for 9.4 s, 96 KB of "_a " for
// 3 s. Linear parsing renders each in well under a second.
var hostileMarkdown = []struct {
	name, unit string
	kb         int
}{
	{"open strong", "**a ", 128}, {"open emphasis", "_a ", 96}, {"open code", "`a ", 128},
	{"links", "[a](", 128}, {"nested quotes", "> ", 64}, {"nested lists", "1. ", 64}, {"rule", "- ", 64},
}

// renderAllJS renders unit repeated n times with every character drawn
// (what "Show all" draws) and returns the length of the text drawn and
// the milliseconds it took.
const renderAllJS = `Promise.all([import('/js/markdown.js'), import('preact')]).then(([md, p]) => {
	const el = document.createElement('div'), src = %s.repeat(%d), t0 = performance.now();
	p.render(p.h('div', null, (md.render || md.markdown)(src)), el);
	return [el.textContent.length, performance.now() - t0]; })`

// testMarkdownHostile renders four times the hostile inputs of the issue
// in full: the old parser needed minutes (quadratic), so the eval's 15 s
// deadline is a generous bound that only linear parsing meets. The time
// itself is measured by BenchmarkMarkdownHostile.
func testMarkdownHostile(t *testing.T, r *rig) {
	for _, c := range hostileMarkdown {
		n := 4 * c.kb * 1024 / len(c.unit)
		if got := eval[[]float64](t, r.browser, fmt.Sprintf(renderAllJS, mustJSON(c.unit), n)); got[0] == 0 && c.unit != "- " { // one thematic break
			t.Errorf("%s: drew nothing of %d characters", c.name, n*len(c.unit))
		}
	}
}

// BenchmarkMarkdownHostile reports the milliseconds the page's renderer
// takes (parse and Preact render into a detached element) for each hostile
// input at the size of the issue:
//
//	go test ./internal/web -run '^$' -bench MarkdownHostile -benchtime 5x
func BenchmarkMarkdownHostile(b *testing.B) {
	requireChromium(b)
	srv := appServer(b, agentDir(b), false)
	br := newBrowser(b, srv.URL)
	br.open(b, "/")
	br.waitJS(b, `document.querySelector('.sess')`)
	for _, c := range hostileMarkdown {
		b.Run(fmt.Sprintf("%s-%dKB", strings.ReplaceAll(c.name, " ", "-"), c.kb), func(b *testing.B) {
			var total float64
			for range b.N {
				total += eval[[]float64](b, br, fmt.Sprintf(renderAllJS, mustJSON(c.unit), c.kb*1024/len(c.unit)))[1]
			}
			b.ReportMetric(total/float64(b.N), "ms-render")
		})
	}
	br.noConsoleErrors(b)
}

// testLongTexts opens a session with a 1 MB word (user), a 200 KB answer,
// a 1 MB word of thinking and 1 MB of one-line tool output: each draws at
// most the cap with a "Show all" button, nothing overflows sideways, and
// "Show all" draws the whole word, broken to the column's width. A
// 20,000-line output is drawn lazily (testLazyOutput).
func testLongTexts(t *testing.T, r *rig) {
	word := strings.Repeat("x", 1<<20)
	answer := strings.Repeat("A paragraph of an answer that goes on. ", 50) + "\n\n"
	id := writeSession(t, r.dir, "/tmp/long", []map[string]any{
		{"role": "user", "content": []any{map[string]any{"type": "text", "text": word}}, "timestamp": 1},
		{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": word},
			map[string]any{"type": "text", "text": strings.Repeat(answer, 200*1024/len(answer))},
			map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": "yes"}},
			map[string]any{"type": "toolCall", "id": "c2", "name": "bash", "arguments": map[string]any{"command": "seq 20000"}},
		}, "api": "x", "provider": "x", "model": "m", "usage": usage(), "stopReason": "toolUse", "timestamp": 2},
		{"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": word}}, "isError": false, "timestamp": 3},
		{"role": "toolResult", "toolCallId": "c2", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": manyLines(20000)}}, "isError": false, "timestamp": 4},
	})
	r.openSession(t, id, `document.querySelectorAll('.show-all').length >= 4`)
	const sideways = `(() => { const c = document.querySelector('.conv');
		return document.documentElement.scrollWidth > innerWidth || c.scrollWidth > c.clientWidth; })()`
	if eval[bool](t, r.browser, sideways) {
		t.Error("the page overflows sideways")
	}
	if n := eval[int](t, r.browser, `document.querySelector('.row[data-role=user] .md').textContent.length`); n > 70000 {
		t.Errorf("the user's word draws %d characters before Show all", n)
	}
	r.click(t, `.row[data-role=user] .show-all button`)
	r.waitJS(t, `document.querySelector('.row[data-role=user] .md').textContent.length === 1048576`)
	if eval[bool](t, r.browser, sideways) {
		t.Error("the whole word overflows sideways")
	}
	testLazyOutput(t, r)
}

// manyLines is n numbered lines of output, "line 1" to "line n".
func manyLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of a long output\n", i)
	}
	return b.String()
}

// lazyState describes the open session's lazily drawn output: its chunks,
// how many are drawn, the characters in the DOM and whether its first and
// last lines are among them.
const lazyState = `(() => { const l = document.querySelector('.lazy'); if (!l) return null;
	const cs = [...l.querySelectorAll('.lazy-chunk')];
	return {chunks: cs.length, drawn: cs.filter((c) => c.textContent).length, chars: l.textContent.length,
		first: l.textContent.includes('line 1 of'), last: l.textContent.includes('line 20000 of'),
		bar: l.querySelector('.lazy-bar').textContent}; })()`

type lazyInfo struct {
	Chunks, Drawn, Chars int
	First, Last          bool
	Bar                  string
}

// testLazyOutput: the 20,000-line output of testLongTexts's session draws
// only the chunks near the screen (its first once scrolled to), says so,
// and draws its end (and drops its start) once scrolled there.
func testLazyOutput(t *testing.T, r *rig) {
	r.waitJS(t, `document.querySelector('.lazy')`)
	eval[bool](t, r.browser, `(document.querySelector('.lazy').closest('.out').scrollIntoView(), true)`)
	r.waitJS(t, `document.querySelector('.lazy').textContent.includes('line 1 of')`)
	got := eval[lazyInfo](t, r.browser, lazyState)
	if got.Chunks != 100 || got.Drawn > 3 || !got.First || got.Last || got.Chars > 20000 ||
		!strings.HasPrefix(got.Bar, "20,000 lines, drawn as they scroll into view") {
		t.Errorf("before scrolling: %+v", got)
	}
	eval[bool](t, r.browser, `(() => { const o = document.querySelector('.lazy').closest('.out');
		o.scrollTop = o.scrollHeight; return true; })()`)
	r.waitJS(t, `document.querySelector('.lazy').textContent.includes('line 20000 of')`)
	if got := eval[lazyInfo](t, r.browser, lazyState); got.First || got.Drawn > 4 {
		t.Errorf("scrolled to the end: %+v", got)
	}
}
