package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSearchNarrows checks the role and branch filters, the order of
// current-branch hits before abandoned ones, and the counts, on a tree
// whose first branch (u2) was abandoned.
func TestSearchNarrows(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "sessions", "--w--")
	os.MkdirAll(proj, 0o755)
	p := filepath.Join(proj, "kiwi.jsonl")
	// u2 (the newest, and the most relevant) lies on the abandoned branch.
	c := hdr + "\n" + line("u1", "", "user", "kiwi aaa", 1) + line("a1", "u1", "assistant", "kiwi bbb", 2) +
		line("u3", "a1", "user", "kiwi ccc", 3) + line("a3", "u3", "assistant", "kiwi ddd", 4) +
		line("u2", "a1", "user", "kiwi kiwi", 5) + `{"type":"branch_summary","id":"b1","parentId":"a3","fromId":"a3","summary":"kiwi","timestamp":"2026-01-02T03:06:00.000Z"}` + "\n"
	if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
	treeNow := time.UnixMilli(1767322800000 + 10*60000)
	ix := openTest(t, dir)
	syncAll(t, ix)
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"all", Query{Text: "kiwi"}, []string{"b1", "a3", "u3", "a1", "u1", "u2"}},
		{"user", Query{Text: "kiwi", Roles: []string{"user"}}, []string{"u3", "u1", "u2"}},
		{"assistant or user", Query{Text: "kiwi", Roles: []string{"assistant", "user"}}, []string{"a3", "u3", "a1", "u1", "u2"}},
		{"tool output", Query{Text: "kiwi", Roles: []string{"toolResult", "bashExecution"}}, nil},
		{"current", Query{Text: "kiwi", Branch: CurrentBranch}, []string{"b1", "a3", "u3", "a1", "u1"}},
		{"abandoned", Query{Text: "kiwi", Branch: Abandoned}, []string{"u2"}},
		{"project", Query{Text: "kiwi", Cwds: []string{"/elsewhere", "/w"}, Branch: Abandoned}, []string{"u2"}},
		{"other project", Query{Text: "kiwi", Cwds: []string{"/elsewhere"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Now = treeNow
			hits, err := ix.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.EntryID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			n, err := ix.Count(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			want := Counts{Total: len(tt.want), ByPath: map[string]int{}}
			if len(tt.want) > 0 {
				want.ByPath[p] = len(tt.want)
			}
			if diff := cmp.Diff(want, n); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModelOfTwoProviders: a model filter that names a model two
// providers serve keeps both (its SQL has one parameter per model).
func TestModelOfTwoProviders(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "sessions", "--w--")
	os.MkdirAll(proj, 0o755)
	for i, prov := range []string{"prov", "zed"} {
		c := hdr + "\n" + `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-02T03:04:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"kiwi"}],"provider":"` + prov + `","model":"mod","timestamp":1767322800000}}` + "\n"
		if err := os.WriteFile(filepath.Join(proj, prov+".jsonl"), []byte(strings.Replace(c, `"id":"s1"`, `"id":"s`+string(rune('a'+i))+`"`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := openTest(t, dir)
	syncAll(t, ix)
	for _, model := range []string{"mod", "zed/mod"} {
		n, err := ix.Count(context.Background(), Query{Text: "kiwi", Model: model})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"mod": 2, "zed/mod": 1}[model]; n.Total != want {
			t.Errorf("model %q: %d hits, want %d", model, n.Total, want)
		}
	}
}

// TestCountCapped: a count that reaches its cap stops there and says so.
func TestCountCapped(t *testing.T) {
	defer func(n int) { countCap = n }(countCap)
	countCap = 3
	dir := t.TempDir()
	p := writeWords(t, dir, "s", "kiwi a", "kiwi b", "kiwi c", "kiwi d", "kiwi e")
	ix := openTest(t, dir)
	syncAll(t, ix)
	for _, tc := range []struct {
		text string
		want Counts
	}{
		{"kiwi", Counts{Total: 3, ByPath: map[string]int{p: 3}, Capped: true}},
		{"kiwi b", Counts{Total: 1, ByPath: map[string]int{p: 1}}},
	} {
		got, err := ix.Count(context.Background(), Query{Text: tc.text})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.text, diff)
		}
	}
}
