package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// line returns a message entry line.
func line(id, parent, role, text string, ts int) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	content := fmt.Sprintf(`[{"type":"text","text":%q}]`, text)
	if role == "user" {
		content = fmt.Sprintf("%q", text)
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-02T03:%02d:00.000Z","message":{"role":%q,"content":%s,"provider":"prov","model":"mod","timestamp":%d}}`+"\n",
		id, p, ts, role, content, 1767322800000+ts*60000)
}

// writeTree writes a session whose first branch (u2) was abandoned for a
// second one (u3, a3).
func writeTree(t *testing.T, dir string) string {
	t.Helper()
	c := hdr + "\n" + line("u1", "", "user", "alpha apple", 1) + line("a1", "u1", "assistant", "banana split", 2) +
		line("u2", "a1", "user", "cherry pie abandoned", 3) + line("u3", "a1", "user", "durian fruit", 4) +
		line("a3", "u3", "assistant", "elderberry wine", 5)
	return writeSession(t, dir, "tree", c)
}

// searchOK is ix.Search of q; an error stops the test.
func searchOK(t *testing.T, ix *Index, q Query) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func search(t *testing.T, ix *Index, q Query) map[string]bool {
	t.Helper()
	hits := searchOK(t, ix, q)
	got := map[string]bool{}
	for _, h := range hits {
		got[h.EntryID] = h.OnBranch
	}
	return got
}

func TestSearchBranches(t *testing.T) {
	dir := t.TempDir()
	p := writeTree(t, dir)
	ix := openTest(t, dir)
	syncAll(t, ix)
	tests := []struct {
		q    string
		want map[string]bool
	}{
		{"cherry", map[string]bool{"u2": false}},
		{"elderberry", map[string]bool{"a3": true}},
		{"ban*", map[string]bool{"a1": true}},
		{`"pie abandoned"`, map[string]bool{"u2": false}},
		{`"abandoned pie"`, map[string]bool{}},
		{"apple alpha", map[string]bool{"u1": true}},
		{`NOT OR AND ( ) : ^ * "`, map[string]bool{}},
		{"durian:fruit", map[string]bool{"u3": true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, search(t, ix, Query{Text: tt.q})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.q, diff)
		}
	}
	// Going back to the first branch moves the flags.
	testkit.AppendFile(t, p, line("u4", "u2", "user", "fig jam", 6))
	syncAll(t, ix)
	want := map[string]bool{"u2": true}
	if diff := cmp.Diff(want, search(t, ix, Query{Text: "cherry"})); diff != "" {
		t.Errorf("after switch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"a3": false}, search(t, ix, Query{Text: "elderberry"})); diff != "" {
		t.Errorf("after switch (-want +got):\n%s", diff)
	}
	checkBranch(t, ix, p)
}

func TestSearchFilters(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir)
	ix := openTest(t, dir)
	syncAll(t, ix)
	day := time.Date(2026, 1, 2, 3, 3, 30, 0, time.UTC)
	tests := []struct {
		q    Query
		want int
	}{
		{Query{Text: "alpha", Cwd: "/w"}, 1},
		{Query{Text: "alpha", Cwd: "/other"}, 0},
		{Query{Text: "alpha", Model: "mod"}, 1},
		{Query{Text: "alpha", Model: "prov/mod"}, 1},
		{Query{Text: "alpha", Model: "x"}, 0},
		{Query{Text: "elderberry", From: day}, 1},
		{Query{Text: "alpha", From: day}, 0},
		{Query{Text: "alpha", To: day}, 1},
	}
	for _, tt := range tests {
		if got := len(search(t, ix, tt.q)); got != tt.want {
			t.Errorf("%+v: %d hits, want %d", tt.q, got, tt.want)
		}
	}
}

func syncAll(t testing.TB, ix *Index) SyncStats {
	t.Helper()
	st, err := ix.Sync(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// checkBranch compares the index's current-branch flags of a file with
// the path pi's loader computes.
func checkBranch(t testing.TB, ix *Index, path string) {
	t.Helper()
	s, err := pisession.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, e := range s.Entries {
		want[e.ID] = false
	}
	for _, e := range s.PathTo(s.Leaf()) {
		want[e.ID] = true
	}
	rows, err := ix.db.Query(`SELECT eid, on_branch FROM entries e JOIN files f ON f.id = e.file_id WHERE f.path = ?`, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]bool{}
	for rows.Next() {
		var id string
		var on bool
		rows.Scan(&id, &on)
		got[id] = on
	}
	// maps.Equal first: cmp.Diff sorts the keys even when the maps are
	// equal, seconds for a 100,000-entry file under -race.
	if !maps.Equal(want, got) {
		t.Fatalf("%s: branch flags (-pi +index):\n%s", path, cmp.Diff(want, got))
	}
}

// TestBranchGrowth replays generated sessions (with branches) a chunk of
// lines at a time and checks the flags after each step.
func TestBranchGrowth(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	src := genCorpus(t, corpus.Options{Files: 4, Bytes: 400 << 10, Seed: 9})
	dir := t.TempDir()
	proj := filepath.Join(dir, "sessions", "--p--")
	os.MkdirAll(proj, 0o755)
	ix := openTest(t, dir)
	for i, f := range pisession.SessionFiles(src) {
		b, _ := os.ReadFile(f)
		lines := strings.SplitAfter(string(b), "\n")
		dst := filepath.Join(proj, fmt.Sprintf("%d.jsonl", i))
		os.WriteFile(dst, nil, 0o644)
		for j := 0; j < len(lines); j += 7 {
			testkit.AppendFile(t, dst, strings.Join(lines[j:min(j+7, len(lines))], ""))
			syncAll(t, ix)
			checkBranch(t, ix, dst)
		}
	}
	checkList(t, ix, dir)
}

func FuzzQuery(f *testing.F) {
	for _, s := range []string{"", `"`, `""`, `"a`, "a*", "*", "**a", `a"b"c`, "NEAR(a b)", "a OR b", "-a", "col:a", "\x00", "\xff\xfe", "^a", "a AND", "(", "é*", `"x"*y`} {
		f.Add(s)
	}
	dir := f.TempDir()
	ix := openTest(f, dir)
	writeSession(f, dir, "a", hdr+"\n"+usr+"\n"+asst+"\n")
	syncAll(f, ix)
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := ix.Search(context.Background(), Query{Text: q}); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		for _, term := range parseQuery(q) {
			if !hasWordChar(term.text) {
				t.Fatalf("%q: empty term kept", q)
			}
		}
	})
}

// TestSearchNarrows checks the role and branch filters, the order of
// current-branch hits before abandoned ones, and the counts, on a tree
// whose first branch (u2) was abandoned.
func TestSearchNarrows(t *testing.T) {
	dir := t.TempDir()
	// u2 (the newest, and the most relevant) lies on the abandoned branch.
	c := hdr + "\n" + line("u1", "", "user", "kiwi aaa", 1) + line("a1", "u1", "assistant", "kiwi bbb", 2) +
		line("u3", "a1", "user", "kiwi ccc", 3) + line("a3", "u3", "assistant", "kiwi ddd", 4) +
		line("u2", "a1", "user", "kiwi kiwi", 5) + `{"type":"branch_summary","id":"b1","parentId":"a3","fromId":"a3","summary":"kiwi","timestamp":"2026-01-02T03:06:00.000Z"}` + "\n"
	p := writeSession(t, dir, "kiwi", c)
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
			hits := searchOK(t, ix, tt.q)
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
	for i, prov := range []string{"prov", "zed"} {
		c := hdr + "\n" + `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-02T03:04:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"kiwi"}],"provider":"` + prov + `","model":"mod","timestamp":1767322800000}}` + "\n"
		writeSession(t, dir, prov, strings.Replace(c, `"id":"s1"`, `"id":"s`+string(rune('a'+i))+`"`, 1))
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
