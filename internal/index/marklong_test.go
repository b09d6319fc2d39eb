package index

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarkLong(t *testing.T) {
	tests := []struct{ q, text, want string }{
		{"the", "The theme of the day", "\x02The\x03 theme of \x02the\x03 day"},
		{"th*", "The theme, of thé", "\x02The\x03 \x02theme\x03, of \x02thé\x03"},
		{`"of the"`, "of the end", "\x02of\x03 \x02the\x03 end"},
		{"été a", "Été a b", "\x02Été\x03 \x02a\x03 b"},
		{"x", "no match here", "no match here"},
	}
	for _, tt := range tests {
		if got := markLong(tt.text, parseQuery(tt.q)); got != tt.want {
			t.Errorf("markLong(%q, %q) = %q, want %q", tt.text, tt.q, got, tt.want)
		}
	}
}

// TestSearchLongText finds words in texts longer than FTS5's highlight()
// is given (issue 21: a one-letter search over 8 MB messages took
// minutes): the hits and their snippets come from the text's first part.
func TestSearchLongText(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := t.TempDir()
	long := "zebra " + strings.Repeat("a the ", 1<<20)
	c := hdr + "\n" + line("u1", "", "user", long, 1) + line("a1", "u1", "assistant", "a short zebra", 2)
	writeSession(t, dir, "long", c)
	ix := openTest(t, dir)
	syncAll(t, ix)
	for _, q := range []string{"a", "zebra", "zeb*", "the"} {
		hits := searchOK(t, ix, Query{Text: q})
		snips := map[string][]Span{}
		for _, h := range hits {
			snips[h.EntryID] = h.Snippet
		}
		if len(snips["u1"]) == 0 {
			t.Fatalf("%q: the long text is no hit: %v", q, snips)
		}
		var marked []string
		for _, s := range snips["u1"] {
			if s.Match {
				marked = append(marked, strings.ToLower(s.Text))
			}
		}
		if len(marked) == 0 || !strings.HasPrefix(marked[0], strings.TrimSuffix(q, "*")) {
			t.Errorf("%q: snippet of the long text marks %v", q, cmp.Diff(nil, snips["u1"]))
		}
	}
}
