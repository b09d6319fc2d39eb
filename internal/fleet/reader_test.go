package fleet

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/pgtest"
	"piweb/internal/testkit"
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
	r := openReader(t, urlA)
	ctx := context.Background()
	ms, err := r.Machines(ctx, time.Now())
	if err != nil || len(ms) != 2 || ms[0].Name != "cloud" || !ms[0].Online || ms[0].Sessions != 2 || ms[1].Sessions != 1 {
		t.Errorf("machines: %+v (%v)", ms, err)
	}
	if ms, _ := r.Machines(ctx, time.Now().Add(3*time.Minute)); len(ms) != 2 || ms[0].Online {
		t.Errorf("machines three minutes later: %+v, want offline", ms)
	}
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
	// Every match is counted, not only the hits returned (as locally).
	every, _ := r.Search(ctx, catalog.SearchQuery{Text: "zebras", Limit: 100})
	sum := 0
	for _, sc := range all.Sessions {
		sum += sc.Count
	}
	if all.Count != len(every.Hits) || all.CountCapped || all.SessionCount != every.SessionCount || sum > all.Count || sum < 2 {
		t.Errorf("zebras, limit 2: count %d (capped %v) in %d sessions, want %d in %d; the hits' sessions count %d",
			all.Count, all.CountCapped, all.SessionCount, len(every.Hits), every.SessionCount, sum)
	}
	testSharedID(t, every)
	if pre, err := r.Search(ctx, catalog.SearchQuery{Text: "OKAP* liv*", Limit: 10}); err != nil || len(pre.Hits) == 0 || pre.Hits[0].Session.Path != pb {
		t.Errorf("prefix search OKAP* liv*: %+v (%v)", pre, err)
	}
	for _, q := range []string{`it's* back\*`, "zeb*"} {
		if _, err := r.Search(ctx, catalog.SearchQuery{Text: q}); err != nil {
			t.Errorf("prefix search %q: %v", q, err)
		}
	}
	if _, err := r.Search(ctx, catalog.SearchQuery{Text: `"unclosed & | ! :* ( quote`}); err != nil {
		t.Errorf("operators in the query: %v", err)
	}
	testFleetFilters(t, r, pb)
	testFleetBudget(t, r)
}

// testSharedID: desk and cloud each hold a session of one id (their
// first files; a copied file does the same): the search summary counts
// them apart, each with its machine and its own matches (desk 1
// exchange, cloud 2: a question and its answer each).
func testSharedID(t *testing.T, every apitype.Search) {
	t.Helper()
	got := map[string]int{}
	for _, sc := range every.Sessions {
		if strings.HasSuffix(sc.SessionID, "-000000000001") {
			got[sc.Machine] = sc.Count
		}
	}
	if diff := cmp.Diff(map[string]int{"desk": 2, "cloud": 4}, got); diff != "" {
		t.Errorf("zebras: the summary's sessions of the shared id by machine (-want +got):\n%s\n%+v", diff, every.Sessions)
	}
}

// testFleetBudget: a search whose whole statement outlasts its budget
// answers within it, from the newest entries, marked partial, its counts
// lower bounds (decision 0036), as the local search does.
func testFleetBudget(t *testing.T, r *Reader) {
	t.Helper()
	ctx := context.Background()
	whole, err := r.Search(ctx, catalog.SearchQuery{Text: "zebras", Limit: 100})
	if err != nil || whole.Partial || len(whole.Hits) < 2 {
		t.Fatalf("zebras within the budget: %d hits, partial %v (%v)", len(whole.Hits), whole.Partial, err)
	}
	slow := *r
	slow.budget, slow.window = 400*time.Millisecond, 1
	wholeSearchSQL = `SELECT * FROM (` + searchSQL + `) s WHERE pg_sleep(5) IS NOT NULL`
	defer func() { wholeSearchSQL = searchSQL }()
	got, err := slow.Search(ctx, catalog.SearchQuery{Text: "zebras", Limit: 100})
	if err != nil || !got.Partial || !got.CountCapped {
		t.Fatalf("zebras past the budget: partial %v, count capped %v (%v); want partial", got.Partial, got.CountCapped, err)
	}
	if len(got.Hits) == 0 || len(got.Hits) >= len(whole.Hits) || got.Count > whole.Count {
		t.Errorf("zebras past the budget: %d hits, count %d; want some of the newest of %d, count at most %d",
			len(got.Hits), got.Count, len(whole.Hits), whole.Count)
	}
}

// testFleetFilters: the fleet's search takes the search box's filters
// (issue 26 item 2) as the local search does.
func testFleetFilters(t *testing.T, r *Reader, pb string) {
	t.Helper()
	for _, tc := range []struct {
		text string
		want int // hits of okapis, all in pb
	}{
		{"okapis", 2}, {"okapis role:user", 1}, {"okapis role:assistant", 1}, {"okapis role:tool", 0},
		{"okapis branch:current", 2}, {"okapis branch:abandoned", 0},
		{"okapis project:PROJ", 2}, {"okapis project:/work/proj", 2}, {"okapis project:elsewhere", 0},
		{"okapis after:2000-01-01 before:2999-01-01", 2}, {"okapis after:2999-01-01", 0},
		{"okapis model:no-such-model", 0}, {"okapis model:m1", 2}, {"okapis model:fake/m1", 2},
	} {
		q := catalog.ParseSearch(tc.text, time.UTC)
		q.Limit = 10
		got, err := r.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		if len(got.Hits) != tc.want || len(got.Warnings) != 0 || len(got.Filters) != len(q.Filters) {
			t.Errorf("%s: %d hits, want %d; warnings %q, filters %v", tc.text, len(got.Hits), tc.want, got.Warnings, got.Filters)
		}
		for _, h := range got.Hits {
			if h.Session.Path != pb {
				t.Errorf("%s: hit in %s", tc.text, h.Session.Path)
			}
		}
	}
}

func TestSplitQuery(t *testing.T) {
	for _, tc := range []struct{ in, words, prefixes string }{
		{"okapi live", "okapi live", ""},
		{`oka* "live here" zeb*`, `"live here"`, "'oka':* & 'zeb':*"},
		{`"not* a prefix"`, `"not* a prefix"`, ""},
		{`it's* back\*`, "", `'it''s':* & 'back\\':*`},
		{"* **", "* **", ""},
	} {
		w, p := splitQuery(tc.in)
		if w != tc.words || p != tc.prefixes {
			t.Errorf("splitQuery(%q) = %q, %q; want %q, %q", tc.in, w, p, tc.words, tc.prefixes)
		}
	}
}

func TestSnippet(t *testing.T) {
	text, hl := snippet("a \x02b\x03 c \x02dé\x03")
	if text != "a b c dé" || !cmp.Equal(hl, [][2]int{{2, 3}, {6, 9}}) {
		t.Errorf("snippet = %q %v", text, hl)
	}
}

// TestListen: a push's commit reaches a listener (LISTEN/NOTIFY, no
// polling) with the machine's name; the time from an append on disk to
// the notification is logged (issue 22: an append visible in another
// machine's page within 2 s, p95).
func TestListen(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "listen")
	_, path, cat := oneDir(t, 1)
	p := startPusher(t, Options{URL: url, Machine: "box", Source: cat})
	awaitStatus(t, p, "the first push", func(s Status) bool { return s.State == StateCurrent })
	r := openReader(t, url)
	heard := make(chan string, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Listen(ctx, 10*time.Millisecond, func(m string) { heard <- m }); close(done) }()
	defer func() { cancel(); <-done }()
	// Listening is asynchronous: wait until a touch of the file is heard.
	eventually(t, func() error {
		appendLine(t, path, `{"type":"label","id":"l`+fmt.Sprint(time.Now().UnixNano())+`","parentId":null,"timestamp":"2026-12-04T10:09:00.000Z","targetId":"s1-0a","label":"x"}`)
		select {
		case m := <-heard:
			if m != "box" {
				return fmt.Errorf("heard %q", m)
			}
			return nil
		case <-time.After(time.Second):
			return fmt.Errorf("nothing heard")
		}
	}, "the first notification")
	var took []time.Duration
	for i := range 20 {
		for len(heard) > 0 {
			<-heard
		}
		start := time.Now()
		appendExchange(t, path, fmt.Sprintf("n%d", i), "", "notified")
		if m := testkit.Recv(t, heard, 10*time.Second, "a notification of the append"); m != "box" {
			t.Fatalf("heard %q, want box", m)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("append to notification: median %v, p95 %v, max %v", took[len(took)/2], took[len(took)*95/100], took[len(took)-1])
	if p95 := took[len(took)*95/100]; p95 > 2*time.Second {
		t.Errorf("p95 %v, want at most 2 s", p95)
	}
}

// TestUsage: the fleet's usage by machine, day and model, each day split
// by machine; a copy of a session (a clone keeps its answers' ids and
// times) counts once; the costliest sessions with their machine.
func TestUsage(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	urlA, urlB := d.role(t, "ua"), d.role(t, "ub")
	a, b := newAgentDir(t), newAgentDir(t)
	orig := a.create(t, 2)
	if err := os.WriteFile(strings.TrimSuffix(orig, ".jsonl")+"-copy.jsonl", testkit.ReadFile(t, orig), 0o644); err != nil {
		t.Fatal(err)
	}
	b.create(t, 3)
	pushA := startPusher(t, Options{URL: urlA, Machine: "desk", Source: openCatalog(t, a)})
	pushB := startPusher(t, Options{URL: urlB, Machine: "cloud", Source: openCatalog(t, b)})
	admin := d.admin(t)
	eventually(t, func() error {
		var desk, cloud int
		err := admin.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE machine = 'desk'),
			count(*) FILTER (WHERE machine = 'cloud') FROM fleet.usage`).Scan(&desk, &cloud)
		if sa, sb := pushA.Status(), pushB.Status(); err != nil || desk != 4 || cloud != 3 || sa.State != StateCurrent || sb.State != StateCurrent {
			return fmt.Errorf("usage rows desk %d, cloud %d (%v); %s, %s", desk, cloud, err, sa.State, sb.State)
		}
		return nil
	}, "both pushes")
	r := openReader(t, urlA)
	ctx := context.Background()
	for _, tc := range []struct {
		by, split string
		want      []catalog.UsageRow
	}{
		{"machine", "", []catalog.UsageRow{
			{Key: "cloud", Input: 30, Output: 15, Cost: 0.09, Messages: 3},
			{Key: "desk", Input: 20, Output: 10, Cost: 0.06, Messages: 2}}},
		{"day", "", []catalog.UsageRow{{Key: "2026-12-04", Input: 50, Output: 25, Cost: 0.15, Messages: 5}}},
		{"model", "", []catalog.UsageRow{{Key: "fake/m1", Input: 50, Output: 25, Cost: 0.15, Messages: 5}}},
		{"day", "machine", []catalog.UsageRow{
			{Key: "2026-12-04", Group: "cloud", Input: 30, Output: 15, Cost: 0.09, Messages: 3},
			{Key: "2026-12-04", Group: "desk", Input: 20, Output: 10, Cost: 0.06, Messages: 2}}},
	} {
		got, err := r.Usage(ctx, UsageQuery{By: tc.by, Split: tc.split, TZ: "Europe/Paris"})
		if err != nil {
			t.Fatalf("by %s: %v", tc.by, err)
		}
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("by %s (-want +got):\n%s", tc.by, diff)
		}
	}
	if got, err := r.Usage(ctx, UsageQuery{By: "day", TZ: "UTC", Since: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil || len(got) != 0 {
		t.Errorf("usage since 2027: %v (%v), want none", got, err)
	}
	list, err := r.UsageSessions(ctx, time.Time{}, 1)
	if err != nil || len(list) != 1 || list[0].Session.Machine != "cloud" || list[0].Usage.Messages != 3 || list[0].Session.ID == "" {
		t.Errorf("costliest session = %+v (%v), want cloud's with 3 answers", list, err)
	}
}
