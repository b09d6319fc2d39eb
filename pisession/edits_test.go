package pisession

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
)

// TestContextEdits: in a file pi 1.6.0 wrote while retrying a failing
// prompt twice (testdata/retry-1.6.0.jsonl: each failed attempt dropped
// with a context_edit), the context route places each omitted attempt
// before the context entry that followed it, or after the last one, on the
// page that holds that place, with the file's message.
func TestContextEdits(t *testing.T) {
	b := testkit.ReadFile(t, "testdata/retry-1.6.0.jsonl")
	sess := Parse(b)
	leaf := sess.Leaf()
	c := sess.ContextAt(leaf)
	if got, want := c.EntryIDs, []string{"9a8a6c59", "ab3b626c", "890c4659"}; !cmp.Equal(got, want) {
		t.Fatalf("context entries %v, want %v", got, want)
	}
	type place struct {
		ID, Before string
		Role       string
	}
	places := func(start, end int) []place {
		var out []place
		for _, e := range sess.EditsOnPage(leaf, c, start, end) {
			var m struct{ Role string }
			json.Unmarshal(e.Original, &m)
			p := place{ID: e.EntryID, Role: m.Role}
			if !e.Omitted {
				t.Errorf("%s: not omitted", e.EntryID)
			}
			if e.BeforeID != nil {
				p.Before = *e.BeforeID
			}
			out = append(out, p)
		}
		return out
	}
	both := []place{{"b4392ba0", "890c4659", "assistant"}, {"2e2aba0c", "890c4659", "assistant"}}
	if d := cmp.Diff(both, places(0, 3)); d != "" {
		t.Errorf("whole context (-want +got):\n%s", d)
	}
	if d := cmp.Diff(both, places(2, 3)); d != "" {
		t.Errorf("last page (-want +got):\n%s", d)
	}
	if got := places(0, 2); len(got) != 0 {
		t.Errorf("first page holds no edit's place, got %v", got)
	}
}
