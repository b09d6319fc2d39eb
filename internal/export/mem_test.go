package export

import (
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestHugeTextExport exports a branch whose message is a 4 MB text and
// checks the heap's peak against a bound on the text (issue 21: the HTML
// of a 52 MB message took 1.5 GB, goldmark's tree of it): a text over
// maxMarkdown is shown as it is in a <pre>, and documents are written as
// they are rendered.
func TestHugeTextExport(t *testing.T) {
	text := strings.Repeat("line *of* `a` [pasted](log) & <more>\n", 4<<20/38)
	d := Doc{Title: "huge", ID: "id1", Messages: []pisession.Message{
		msg(t, map[string]any{"role": "user", "content": text, "timestamp": 1764583200000})}}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	// Markdown held 2.8 to 3.3 times the text before it was written as it was
	// rendered, 2.3 times after; HTML 63 times before the <pre>, 5.5 after.
	for _, format := range []string{"html", "md"} {
		var out countWriter
		p := testkit.StartPeak()
		err := Write(&out, format, d)
		heap, _ := p.Stop()
		if err != nil || out.n < int64(len(text)) {
			t.Fatalf("%s: %v, %d bytes", format, err, out.n)
		}
		t.Logf("%s: peak heap %.1f MB", format, heap)
		if limit := map[string]float64{"html": 12, "md": 2.8}[format] * float64(len(text)) / (1 << 20); heap > limit {
			t.Errorf("%s of a %d MB text peaked at %.0f MB of heap, want at most %.0f", format, len(text)>>20, heap, limit)
		}
	}
	if !strings.Contains(string(markdown(text)), "<pre>line *of* `a` [pasted](log) &amp; &lt;more&gt;") {
		t.Error("a huge text is not shown as it is")
	}
}

// countWriter counts what is written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// TestBigTextSameBytes writes documents with texts over the size that is
// decoded a piece at a time, and checks them byte for byte against the
// same documents written from the whole decoded text: white space at the
// ends (Unicode's too), NULs, markup, escapes and surrogate pairs.
//
// The sizes are scaled down to four pieces a text (256 KB where pi's are
// 1 MB): the same paths at a quarter of the work, which under the race
// detector was 92 s.
func TestBigTextSameBytes(t *testing.T) {
	defer func(m, b int) { maxMarkdown, bigJSON = m, b }(maxMarkdown, bigJSON)
	maxMarkdown, bigJSON = 4*piece, 4*piece
	body := strings.Repeat("line <b>&amp;</b> 'q' \"dq\" a+b \x00 é € 😀 \t\\ end\n", (maxMarkdown+4096)/48)
	texts := map[string]string{
		"plain":  body,
		"spaces": " \u3000\u00a0\n\t" + body + "\u2003 \n\u0085",
		"blank":  strings.Repeat(" \n", maxMarkdown),
		"short":  "  " + strings.Repeat("\"\\", maxMarkdown/3) + " ", // JSON over the size, text under
		// A tool's output: backtick runs (the fence), newlines at its end
		// (trimmed), bash's exit line, and ends longer than the tail the
		// first pass keeps (decoded whole).
		"ticks":     body + "``` ````` `" + "\n\n\n",
		"exit":      body + "done \n\nCommand exited with code -12 \n",
		"exit-only": strings.Repeat(" \n", maxMarkdown) + "Command exited with code 3",
		"long-end":  body + strings.Repeat("\n", 2*tailKeep),
		"long-exit": body + "Command exited with code " + strings.Repeat("7", 3*tailKeep) + "\n",
	}
	for name, text := range texts {
		for _, content := range []any{text, []any{map[string]any{"type": "text", "text": text}, map[string]any{"type": "text", "text": "after"}}} {
			d := Doc{Title: "big", ID: "id1", Messages: []pisession.Message{
				msg(t, map[string]any{"role": "user", "content": content, "timestamp": 1764583200000}),
				msg(t, map[string]any{"role": "assistant", "content": content, "timestamp": 1764583200000}),
				msg(t, map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": content, "timestamp": 1764583200000}),
				msg(t, map[string]any{"role": "bashExecution", "command": "cat log", "output": text + "\ufdd0\uffff", "exitCode": 0, "timestamp": 1764583200000}),
				msg(t, map[string]any{"role": "assistant", "timestamp": 1764583200000, "content": []any{
					map[string]any{"type": "toolCall", "id": "b1", "name": "bash", "arguments": map[string]any{"command": "make"}}}}),
				msg(t, map[string]any{"role": "toolResult", "toolCallId": "b1", "toolName": "bash", "content": content, "timestamp": 1764583200000}),
				msg(t, map[string]any{"role": "toolResult", "toolCallId": "b2", "toolName": "bash", "content": content, "isError": true, "timestamp": 1764583200000})}}
			for _, format := range []string{"md", "html"} {
				var got, want strings.Builder
				if err := Write(&got, format, d); err != nil {
					t.Fatal(err)
				}
				bigJSON = 1 << 40 // every text decoded whole
				err := Write(&want, format, d)
				bigJSON = maxMarkdown
				if err != nil {
					t.Fatal(err)
				}
				g, w := exportedAt(got.String()), exportedAt(want.String())
				if g != w {
					t.Errorf("%s %s (%T): %d bytes differ from %d", name, format, content, len(g), len(w))
				}
			}
		}
	}
}

// exportedAt blanks the export time of an HTML page, which two writes
// may differ in.
func exportedAt(s string) string {
	i := strings.Index(s, "exported ")
	if i < 0 {
		return s
	}
	return s[:i] + s[i+len("exported 2006-01-02 15:04 UTC"):]
}
