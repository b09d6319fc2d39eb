package fleet

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/catalog"
	"piweb/internal/pgtest"
)

// TestReader: two machines push; the fleet's listing and search answer
// for both, each item and hit naming its machine.
func TestReader(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	urlA, urlB := d.role(t, "ra"), d.role(t, "rb")
	a, b := newAgentDir(t), newAgentDir(t)
	a.create(t, 1)
	b.create(t, 2)
	pb := b.create(t, 1)
	appendExchange(t, pb, "okapi", "", "where do okapis live")
	catA, catB := openCatalog(t, a), openCatalog(t, b)
	pushA := startPusher(t, Options{URL: urlA, Machine: "desk", Source: catA})
	pushB := startPusher(t, Options{URL: urlB, Machine: "cloud", Source: catB})
	eventually(t, func() error {
		for _, p := range []*Pusher{pushA, pushB} {
			if s := p.Status(); s.State != StateCurrent || s.Pushed.Sessions == 0 {
				return fmt.Errorf("%s: %s", s.Machine, s.State)
			}
		}
		return nil
	}, "both pushes")
	r, err := NewReader(urlA)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	list, err := r.Sessions(ctx, catalog.ListQuery{Sort: "modified"}, "")
	if err != nil {
		t.Fatal(err)
	}
	machines := map[string]int{}
	for _, it := range list.Sessions {
		machines[it.Machine]++
	}
	if diff := cmp.Diff(map[string]int{"desk": 1, "cloud": 2}, machines); diff != "" || list.Total != 3 {
		t.Errorf("listing by machine (-want +got), total %d:\n%s", list.Total, diff)
	}
	page, err := r.Sessions(ctx, catalog.ListQuery{Sort: "name", Asc: true, Limit: 1, Offset: 1}, "cloud")
	if err != nil || len(page.Sessions) != 1 || page.Total != 2 || page.Sessions[0].Machine != "cloud" {
		t.Errorf("cloud's second session: %+v (%v)", page, err)
	}
	found, err := r.Sessions(ctx, catalog.ListQuery{Text: "okapis"}, "")
	if err != nil || len(found.Sessions) != 1 || found.Sessions[0].Path != pb {
		t.Errorf("listing filtered by okapis: %+v (%v)", found, err)
	}
	hits, err := r.Search(ctx, catalog.SearchQuery{Text: "okapis live", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits.Hits) == 0 || hits.Hits[0].Machine != "cloud" || hits.Hits[0].Session.Path != pb || !hits.Hits[0].OnCurrentBranch {
		t.Fatalf("search okapis live: %+v", hits)
	}
	h := hits.Hits[0]
	if len(h.Highlights) == 0 || !strings.Contains(h.Snippet, "okapis") {
		t.Errorf("snippet %q highlights %v", h.Snippet, h.Highlights)
	}
	all, err := r.Search(ctx, catalog.SearchQuery{Text: "zebras", Limit: 2})
	if err != nil || len(all.Hits) != 2 || !all.More {
		t.Errorf("zebras, limit 2: %d hits, more %v (%v)", len(all.Hits), all.More, err)
	}
	if _, err := r.Search(ctx, catalog.SearchQuery{Text: `"unclosed & | ! :* ( quote`}); err != nil {
		t.Errorf("operators in the query: %v", err)
	}
}

func TestSnippet(t *testing.T) {
	text, hl := snippet("a \x02b\x03 c \x02dé\x03")
	if text != "a b c dé" || !cmp.Equal(hl, [][2]int{{2, 3}, {6, 9}}) {
		t.Errorf("snippet = %q %v", text, hl)
	}
}
