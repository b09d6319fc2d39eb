package index

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var rankNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// lineAt returns a user message entry line at time t.
func lineAt(id, parent, text string, t time.Time) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"user","content":%q,"timestamp":%d}}`+"\n",
		id, p, t.UTC().Format("2006-01-02T15:04:05.000Z"), text, t.UnixMilli())
}

// writeTimed writes a session of user entries with texts and ages.
func writeTimed(t *testing.T, dir, name string, entries []timedText) {
	t.Helper()
	var b strings.Builder
	b.WriteString(hdr + "\n")
	parent := ""
	for _, e := range entries {
		b.WriteString(lineAt(e.id, parent, e.text, rankNow.Add(-e.age)))
		parent = e.id
	}
	writeSession(t, dir, name, b.String())
}

type timedText struct {
	id, text string
	age      time.Duration
}

func rankedIDs(t *testing.T, ix *Index, q Query) []string {
	t.Helper()
	q.Now = rankNow
	hits := searchOK(t, ix, q)
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.EntryID)
	}
	return ids
}

// TestRanking checks the order doc.go promises: frequency for the length
// first, then a decay of 1/(1 + age/30 days), newer first when equal.
func TestRanking(t *testing.T) {
	day := 24 * time.Hour
	dir := t.TempDir()
	writeTimed(t, dir, "s", []timedText{
		{"dense", "apple apple apple pie", 2 * day},
		{"sparse", "apple pie with a long tail of other words that dilute the match a lot", 2 * day},
		{"old", "apple apple apple pie", 300 * day},
		{"same1", "apple tart", 5 * day},
		{"same2", "apple tart", 4 * day},
		{"other", "pear tart", 0},
	})
	ix := openTest(t, dir)
	syncAll(t, ix)
	want := []string{"dense", "same2", "same1", "sparse", "old"}
	if diff := cmp.Diff(want, rankedIDs(t, ix, Query{Text: "apple"})); diff != "" {
		t.Errorf("apple (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"other", "same2", "same1"}, rankedIDs(t, ix, Query{Text: "tart"})); diff != "" {
		t.Errorf("tart (-want +got):\n%s", diff)
	}
}

// TestRankingWindow checks that only the newest candidates matches are
// ranked: older, more relevant entries are not shown.
func TestRankingWindow(t *testing.T) {
	dir := t.TempDir()
	var es []timedText
	for i := range candidates + 50 {
		text := "kiwi and some filler words"
		if i < 50 {
			text = "kiwi kiwi kiwi" // the oldest are the most relevant
		}
		es = append(es, timedText{fmt.Sprintf("e%03d", i), text, time.Duration(candidates+50-i) * time.Minute})
	}
	writeTimed(t, dir, "s", es)
	ix := openTest(t, dir)
	syncAll(t, ix)
	ids := rankedIDs(t, ix, Query{Text: "kiwi", Limit: 10})
	if len(ids) != 10 {
		t.Fatalf("%d hits", len(ids))
	}
	for _, id := range ids {
		if id < "e050" {
			t.Errorf("%s is older than the newest %d matches", id, candidates)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen"
	tests := []struct {
		marked string
		want   []Span
	}{
		{"plain \x02hit\x03 text", []Span{{Text: "plain "}, {Text: "hit", Match: true}, {Text: " text"}}},
		{"\x02a b\x03!", []Span{{Text: "a b", Match: true}, {Text: "!"}}},
		{"no match", []Span{{Text: "no match"}}},
		{strings.Replace(long, "ten", "\x02ten\x03", 1), []Span{{Text: "…six seven eight nine "}, {Text: "ten", Match: true},
			{Text: " eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen"}}},
		{strings.Replace(long, "two", "\x02two\x03", 1) + " nineteen twenty", []Span{{Text: "one "}, {Text: "two", Match: true},
			{Text: " three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen…"}}},
		// The window with the most matches wins over the first match.
		{"\x02x\x03 " + long + " \x02x\x03 a \x02x\x03", []Span{{Text: "…fifteen sixteen seventeen eighteen "}, {Text: "x", Match: true},
			{Text: " a "}, {Text: "x", Match: true}}},
		{"café \x02crème\x03", []Span{{Text: "café "}, {Text: "crème", Match: true}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, snippet(tt.marked, snippetWords)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.marked, diff)
		}
	}
}

func TestMergeRuns(t *testing.T) {
	r := func(lo, hi int64) rowRange { return rowRange{lo, hi} }
	tests := []struct {
		runs []rowRange
		n    int
		want []rowRange
	}{
		{nil, 4, nil},
		{[]rowRange{r(1, 5)}, 4, []rowRange{r(1, 5)}},
		{[]rowRange{r(1, 5), r(7, 9), r(1000, 1001)}, 4, []rowRange{r(1, 9), r(1000, 1001)}},
		{[]rowRange{r(1, 1), r(1000, 1000), r(3000, 3000), r(3500, 3500), r(9000, 9000)}, 3,
			[]rowRange{r(1, 1000), r(3000, 3500), r(9000, 9000)}},
		{[]rowRange{r(1, 1), r(1000, 1000), r(2000, 2000)}, 1, []rowRange{r(1, 2000)}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, mergeRuns(tt.runs, tt.n, 256), cmp.AllowUnexported(rowRange{})); diff != "" {
			t.Errorf("%v, %d (-want +got):\n%s", tt.runs, tt.n, diff)
		}
	}
}
