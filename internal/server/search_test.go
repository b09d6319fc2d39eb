package server

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/client"
)

// TestSearchNarrows runs issue 26's filters through the typed client: in
// the text and as parameters, their bad forms answered with warnings and
// the rest searched, the honest count, the grouping by session, and
// current-branch hits ranked before abandoned ones.
func TestSearchNarrows(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	search := func(o client.SearchOptions) apitype.Search {
		t.Helper()
		out, err := api.Search(ctx, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		return out
	}
	all := search(client.SearchOptions{Text: "toggle"})
	checkGroups(t, all)
	if all.Count != len(all.Hits) || all.More || all.SessionCount != len(all.Sessions) {
		t.Fatalf("toggle: count %d, %d hits, more %v, %d sessions of %d", all.Count, len(all.Hits), all.More, len(all.Sessions), all.SessionCount)
	}
	branches := map[bool]int{}
	for i, h := range all.Hits {
		branches[h.OnCurrentBranch]++
		if i > 0 && h.OnCurrentBranch && !all.Hits[i-1].OnCurrentBranch {
			t.Errorf("hit %d on the current branch ranks below an abandoned one", i)
		}
	}
	if branches[true] == 0 || branches[false] == 0 {
		t.Fatalf("the demo's toggle hits should lie on both kinds of branch: %v", branches)
	}
	// Limited to one hit, the count is still every match's.
	one := search(client.SearchOptions{Text: "toggle", Limit: 1})
	if len(one.Hits) != 1 || !one.More || one.Count != all.Count {
		t.Errorf("limit 1: %d hits, more %v, count %d (want %d)", len(one.Hits), one.More, one.Count, all.Count)
	}
	cwd := all.Hits[0].Session.Cwd
	tests := []struct {
		name string
		o    client.SearchOptions
		keep func(catalog.HitJSON) bool
		want []catalog.Filter
	}{
		{"current", client.SearchOptions{Text: "branch:current toggle"}, func(h catalog.HitJSON) bool { return h.OnCurrentBranch },
			[]catalog.Filter{{Key: "branch", Value: "current", Raw: "branch:current"}}},
		{"abandoned param", client.SearchOptions{Text: "toggle", Branch: "abandoned"}, func(h catalog.HitJSON) bool { return !h.OnCurrentBranch },
			[]catalog.Filter{{Key: "branch", Value: "abandoned", Raw: "branch:abandoned"}}},
		{"role", client.SearchOptions{Text: "toggle role:user"}, func(h catalog.HitJSON) bool { return h.Role == "user" },
			[]catalog.Filter{{Key: "role", Value: "user", Raw: "role:user"}}},
		{"project by name", client.SearchOptions{Text: "project:" + filepath.Base(cwd) + " toggle"},
			func(h catalog.HitJSON) bool { return h.Session.Cwd == cwd },
			[]catalog.Filter{{Key: "project", Value: filepath.Base(cwd), Raw: "project:" + filepath.Base(cwd)}}},
		{"dates", client.SearchOptions{Text: "toggle after:2000-01-01", Before: "2999-01-01", TZ: "Asia/Tokyo"},
			func(catalog.HitJSON) bool { return true },
			[]catalog.Filter{{Key: "after", Value: "2000-01-01", Raw: "after:2000-01-01"}, {Key: "before", Value: "2999-01-01", Raw: "before:2999-01-01"}}},
		{"future", client.SearchOptions{Text: "toggle after:2999-01-01"}, func(catalog.HitJSON) bool { return false },
			[]catalog.Filter{{Key: "after", Value: "2999-01-01", Raw: "after:2999-01-01"}}},
		{"no such model", client.SearchOptions{Text: "toggle", Model: "no-such-model"}, func(catalog.HitJSON) bool { return false },
			[]catalog.Filter{{Key: "model", Value: "no-such-model", Raw: "model:no-such-model"}}},
	}
	// A project keeps its own sessions among those of every project.
	every, mine := search(client.SearchOptions{Text: "the"}), search(client.SearchOptions{Text: "the project:" + filepath.Base(cwd)})
	for _, h := range mine.Hits {
		if h.Session.Cwd != cwd {
			t.Errorf("project:%s found a hit in %s", filepath.Base(cwd), h.Session.Cwd)
		}
	}
	if mine.Count == 0 || mine.Count >= every.Count || mine.SessionCount >= every.SessionCount {
		t.Errorf("project:%s: %d matches in %d sessions of %d in %d", filepath.Base(cwd), mine.Count, mine.SessionCount, every.Count, every.SessionCount)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := search(tt.o)
			checkGroups(t, got)
			var want []string
			for _, h := range all.Hits {
				if tt.keep(h) {
					want = append(want, h.SessionID+"/"+h.EntryID)
				}
			}
			if diff := cmp.Diff(want, hitIDs(got)); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if len(want) == len(all.Hits) && tt.name != "dates" && tt.name != "project by name" || len(want) == 0 && tt.name != "future" && tt.name != "no such model" {
				t.Errorf("the filter should keep some of the %d hits, not %d", len(all.Hits), len(want))
			}
			if diff := cmp.Diff(tt.want, got.Filters); diff != "" || got.Text != "toggle" || got.Count != len(want) || len(got.Warnings) != 0 {
				t.Errorf("filters (-want +got):\n%s\ntext %q, count %d, warnings %q", diff, got.Text, got.Count, got.Warnings)
			}
		})
	}
}

// TestSearchBadFilters: an unknown key, a bad date, role or branch, a
// project that names none: each is said in a warning that names it, and
// the rest is searched.
func TestSearchBadFilters(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	all, err := api.Search(ctx, client.SearchOptions{Text: "toggle"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		warn []string // words each warning holds
		none bool     // the answer is empty
	}{
		{text: "colour:blue toggle", warn: []string{`"colour:"`}},
		{text: "toggle after:2026-13-40 before:tomorrow", warn: []string{`after: "2026-13-40"`, `before: "tomorrow"`}},
		{text: "toggle role:robot branch:sideways", warn: []string{`role: "robot"`, `branch: "sideways"`}},
		{text: "toggle project:no-such-folder", warn: []string{"no-such-folder"}, none: true},
		// The page's index holds no tool output (only piweb index --tools).
		{text: "toggle role:tool", warn: []string{"tool output"}, none: true},
	} {
		got, err := api.Search(ctx, client.SearchOptions{Text: tt.text})
		if err != nil {
			t.Fatalf("%s: %v", tt.text, err)
		}
		if len(got.Warnings) != len(tt.warn) {
			t.Fatalf("%s: warnings %q, want %d", tt.text, got.Warnings, len(tt.warn))
		}
		for i, w := range tt.warn {
			if !strings.Contains(got.Warnings[i], w) {
				t.Errorf("%s: warning %q does not name %s", tt.text, got.Warnings[i], w)
			}
		}
		want := hitIDs(all)
		if tt.none {
			want = nil
		}
		if diff := cmp.Diff(want, hitIDs(got)); diff != "" {
			t.Errorf("%s: the rest is not searched (-want +got):\n%s", tt.text, diff)
		}
	}
}

func hitIDs(s apitype.Search) []string {
	var out []string
	for _, h := range s.Hits {
		out = append(out, h.SessionID+"/"+h.EntryID)
	}
	return out
}

// checkGroups checks that the answer's sessions are its hits' sessions in
// the order of their best hit, each counting at least its hits.
func checkGroups(t *testing.T, s apitype.Search) {
	t.Helper()
	hits := map[string]int{}
	var order []string
	for _, h := range s.Hits {
		if hits[h.SessionID] == 0 {
			order = append(order, h.SessionID)
		}
		hits[h.SessionID]++
	}
	var got []string
	sum := 0
	for _, g := range s.Sessions {
		got = append(got, g.SessionID)
		sum += g.Count
		if g.Count < hits[g.SessionID] {
			t.Errorf("session %s counts %d matches, %d hits shown", g.SessionID, g.Count, hits[g.SessionID])
		}
	}
	if diff := cmp.Diff(order, got); diff != "" {
		t.Errorf("sessions (-hits' order +answer):\n%s", diff)
	}
	if sum > s.Count {
		t.Errorf("sessions count %d matches, more than the %d in all", sum, s.Count)
	}
}
