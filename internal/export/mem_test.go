package export

import (
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"piweb/internal/session"
	"piweb/internal/testkit"
)

// TestHugeTextExport exports a branch whose message is a 4 MB text and
// checks the heap's peak against a bound on the text (issue 21: the HTML
// of a 52 MB message took 1.5 GB, goldmark's tree of it): a text over
// maxMarkdown is shown as it is in a <pre>, and documents are written as
// they are rendered.
func TestHugeTextExport(t *testing.T) {
	text := strings.Repeat("line *of* `a` [pasted](log) & <more>\n", 4<<20/38)
	d := Doc{Title: "huge", ID: "id1", Messages: []session.Message{
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
