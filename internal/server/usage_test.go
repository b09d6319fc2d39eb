package server

import (
	"cmp"
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"piweb/internal/catalog"
	"piweb/internal/client"
	"piweb/internal/index"
	"piweb/internal/testkit"
	"piweb/pisession"
)

func (r *rig) usage(o client.UsageOptions) (rows []UsageRow, tz string) {
	r.t.Helper()
	u, err := r.api().Usage(r.t.Context(), o)
	if err != nil {
		r.t.Fatalf("usage %+v: %v", o, err)
	}
	return u.Rows, u.TZ
}

// TestUsageFromIndex checks that GET /api/usage over the index answers
// what a scan of the files answers, in the asked zone, and follows an
// append.
func TestUsageFromIndex(t *testing.T) {
	r := newIndexRig(t)
	approx := cmpopts.EquateApprox(1e-9, 1e-9)
	for _, q := range []struct{ by, tz, split string }{{"day", "", ""}, {"day", "Asia/Tokyo", ""}, {"model", "", ""},
		{"project", "", ""}, {"day", "Asia/Tokyo", "model"}, {"day", "", "project"}} {
		got, tz := r.usage(client.UsageOptions{By: q.by, TZ: q.tz, Split: q.split})
		loc, _ := time.LoadLocation(q.tz)
		want, err := scanUsage(context.Background(), r.cat, UsageQuery{By: q.by, Loc: loc, Split: q.split})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || tz != loc.String() {
			t.Fatalf("by %s: %d rows, zone %q", q.by, len(want), tz)
		}
		if d := gocmp.Diff(want, got, approx); d != "" {
			t.Errorf("by %s split %q in %q (-scan +index):\n%s", q.by, q.split, q.tz, d)
		}
	}
	if _, tz := r.usage(client.UsageOptions{By: "day", TZ: "Not/AZone"}); tz != "UTC" {
		t.Errorf("unknown zone answered as %q", tz)
	}
	_, err := r.api().Usage(t.Context(), client.UsageOptions{By: "week"})
	wantErr(t, "by=week", err, 400, "")
	err = r.api().Do(t.Context(), "GET", "/api/usage?days=0", nil, nil)
	wantErr(t, "days=0", err, 400, "")
	_, err = r.api().Usage(t.Context(), client.UsageOptions{By: "model", Split: "project"})
	wantErr(t, "split by model", err, 400, "")
	for _, o := range []client.UsageOptions{{By: "day", Days: 1, TZ: "America/Denver"}, {By: "project", Days: 2}, {By: "model", Days: 400}} {
		query := fmt.Sprintf("by=%s&days=%d&tz=%s", o.By, o.Days, o.TZ)
		q, err := usageQuery(httptest.NewRequest("GET", "/api/usage?"+query, nil))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := scanUsage(context.Background(), r.cat, q)
		got, _ := r.usage(o)
		if d := gocmp.Diff(want, got, approx, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s (-scan +index):\n%s", query, d)
		}
	}

	// An assistant answer appended by another process is counted.
	before, _ := r.usage(client.UsageOptions{By: "model"})
	s := r.item("Dark theme")
	d, err := r.api().Session(t.Context(), s.ID)
	if err != nil || d.Leaf == nil {
		t.Fatalf("leaf %v, %v", d.Leaf, err)
	}
	leaf := *d.Leaf
	testkit.AppendFile(t, s.Path, fmt.Sprintf(`{"type":"message","id":"feed0002","parentId":%q,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],"provider":"acme","model":"m1","usage":{"input":1000,"output":7,"cacheRead":0,"cacheWrite":0,"totalTokens":1007,"cost":{"total":0.25}},"stopReason":"stop","timestamp":1}}`+"\n", leaf))
	want := append(before, UsageRow{Key: "acme/m1", Input: 1000, Output: 7, Cost: 0.25, Messages: 1})
	slices.SortFunc(want, func(a, b UsageRow) int { return strings.Compare(a.Key, b.Key) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := r.usage(client.UsageOptions{By: "model"})
		d := gocmp.Diff(want, got, approx)
		if d == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("usage after append (-want +got):\n%s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// scanUsage is the oracle the index's usage is checked against: it reads
// every listed session's assistant messages.
func scanUsage(ctx context.Context, cat *catalog.Catalog, q UsageQuery) ([]UsageRow, error) {
	metas, _, err := cat.List(ctx, ListQuery{})
	if err != nil {
		return nil, err
	}
	// Forks and clones copy their parent's answers: an answer (entry id
	// and timestamp) counts once per family (files linked by parentSession).
	slices.SortStableFunc(metas, func(a, b Meta) int { return testkit.CompareFloat(a.Created, b.Created) })
	root := map[string]string{}
	for _, m := range metas {
		root[m.Path] = m.Path
	}
	for _, m := range metas {
		if p, ok := root[m.ParentPath]; ok {
			root[m.Path] = p
		}
	}
	seen := map[string]bool{}
	groups := map[string]*UsageRow{}
	for _, m := range metas {
		sess, err := pisession.ReadFile(m.Path)
		if err != nil {
			continue
		}
		for _, e := range sess.Entries {
			if k := root[m.Path] + " " + e.ID + " " + e.Timestamp; !seen[k] {
				seen[k] = true
				addUsage(groups, q, m, e)
			}
		}
	}
	rows := make([]UsageRow, 0, len(groups))
	for _, g := range groups {
		rows = append(rows, *g)
	}
	slices.SortFunc(rows, func(a, b UsageRow) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Group, b.Group))
	})
	return rows, nil
}

func addUsage(groups map[string]*UsageRow, q UsageQuery, m Meta, e *pisession.Entry) {
	c, ok := pisession.ChargeOf(e)
	if !ok {
		return
	}
	t, terr := time.Parse(time.RFC3339Nano, e.Timestamp)
	if !q.Since.IsZero() && (terr != nil || t.Before(q.Since)) {
		return
	}
	var key, group string
	switch q.By {
	case "model":
		key = c.Key
	case "project":
		key = m.Cwd
	case "session":
		key = m.Path
	default:
		if terr == nil {
			key = t.In(q.Loc).Format(time.DateOnly)
		}
		group = map[string]string{"model": c.Key, "project": m.Cwd}[q.Split]
	}
	g := groups[key+"\x00"+group]
	if g == nil {
		g = &UsageRow{Key: key, Group: group}
		groups[key+"\x00"+group] = g
	}
	u, n := c.Usage, int64(0)
	if c.Answer {
		n = 1
	}
	index.AddUsage(g, UsageRow{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Cost: u.Cost.Total, Messages: n})
}

// TestUsageSessions checks GET /api/usage/sessions against the scan: each
// listed session's usage, the most expensive first, limited.
func TestUsageSessions(t *testing.T) {
	r := newIndexRig(t)
	want, err := scanUsage(context.Background(), r.cat, UsageQuery{By: "session", Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.api().UsageSessions(t.Context(), client.UsageOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sessions) < 2 || len(got.Sessions) != len(want) {
		t.Fatalf("%d sessions, the scan has %d", len(got.Sessions), len(want))
	}
	byPath := map[string]UsageRow{}
	for _, w := range want {
		byPath[w.Key] = w
	}
	for i, s := range got.Sessions {
		w := byPath[s.Session.Path]
		w.Key = ""
		if d := gocmp.Diff(w, s.Usage, cmpopts.EquateApprox(1e-9, 1e-9)); d != "" {
			t.Errorf("%s (-scan +api):\n%s", s.Session.Path, d)
		}
		if i > 0 && s.Usage.Cost > got.Sessions[i-1].Usage.Cost {
			t.Errorf("session %d costs more than the one before it", i)
		}
	}
	one, err := r.api().UsageSessions(t.Context(), client.UsageOptions{Limit: 1, Days: 3, TZ: "Asia/Tokyo"})
	if err != nil || len(one.Sessions) > 1 || one.TZ != "Asia/Tokyo" {
		t.Errorf("limit 1: %+v %v", one, err)
	}
	err = r.api().Do(t.Context(), "GET", "/api/usage/sessions?limit=0", nil, nil)
	wantErr(t, "limit=0", err, 400, "")
}
