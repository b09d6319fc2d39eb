package server

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/client"
)

// TestListSessionsPages: the sidebar's page of GET /api/sessions leaves
// the archive out (or lists it alone), puts the pins first whatever their
// age, and counts the matching sessions per folder and the archived ones
// over the whole listing, not the page (decision 0045).
func TestListSessionsPages(t *testing.T) {
	t.Parallel()
	cat := catalog.Static()
	for i := range 30 {
		cat.Put(meta(i, fmt.Sprintf("message %02d", i)))
	}
	r := serveRig(t, t.TempDir(), Options{Addr: "127.0.0.1:1"}, app.Config{Catalog: cat})
	ctx, api := t.Context(), r.api()
	yes := true
	// meta(i) is older as i grows: 29 and 28 are the oldest.
	if _, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{"id-029", "id-028"}, Pinned: &yes}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{"id-000", "id-007", "id-014"}, Archived: &yes}); err != nil {
		t.Fatal(err)
	}
	type page struct {
		IDs      []string
		Total    int
		Projects map[string]int
		Archived int
	}
	for _, tc := range []struct {
		name string
		o    client.ListOptions
		want page
	}{
		{"first page", client.ListOptions{Archived: "hide", PinsFirst: true, Limit: 4},
			page{[]string{"id-028", "id-029", "id-001", "id-002"}, 27,
				map[string]int{"/p/0": 2, "/p/1": 5, "/p/2": 4, "/p/3": 4, "/p/4": 4, "/p/5": 4, "/p/6": 4}, 3}},
		{"archive", client.ListOptions{Archived: "only", Limit: 2},
			page{[]string{"id-000", "id-007"}, 3, map[string]int{"/p/0": 3}, 3}},
		{"filter by folder", client.ListOptions{Archived: "hide", Text: "/P/6", Limit: 2},
			page{[]string{"id-006", "id-013"}, 4, map[string]int{"/p/6": 4}, 0}},
		{"filter by id prefix", client.ListOptions{Archived: "hide", Text: "id-01"},
			page{[]string{"id-010", "id-011", "id-012", "id-013", "id-015", "id-016", "id-017", "id-018", "id-019"},
				9, map[string]int{"/p/1": 1, "/p/2": 1, "/p/3": 2, "/p/4": 2, "/p/5": 2, "/p/6": 1}, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := api.Sessions(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			got := page{Total: l.Total, Projects: l.Projects, Archived: l.Archived}
			for _, it := range l.Sessions {
				got.IDs = append(got.IDs, it.ID)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, q := range []string{"archived=all", "pinned=last"} {
		if err := api.Do(ctx, "GET", "/api/sessions?"+q, nil, nil); err == nil {
			t.Errorf("?%s: no error", q)
		}
	}
}
