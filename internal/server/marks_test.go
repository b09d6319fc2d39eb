package server

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/own"
)

// TestMarksFollowTheUser: read marks and mutes are the server's, kept in
// piweb's config dir, so a second server (another device's view of the
// same piweb, or piweb restarted) answers the same; a mark is at least the
// session's last activity; unknown ids are ignored.
func TestMarksFollowTheUser(t *testing.T) {
	dir := t.TempDir()
	marks, err := own.OpenAttention(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Options{}, app.Config{Marks: marks})
	id := r.items()[0].ID
	api, ctx := r.api(), t.Context()
	before := time.Now()
	st, err := api.MarkRead(ctx, id, "no-such-session")
	if err != nil {
		t.Fatal(err)
	}
	read := st.Read
	if at := read[id]; at.Before(before.Add(-time.Second)) || len(read) != 1 {
		t.Errorf("read marks %v", read)
	}
	for _, one := range []string{id, ""} {
		if _, err := api.Mute(ctx, one, true); err != nil {
			t.Fatal(err)
		}
	}

	again, err := own.OpenAttention(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r2 := newRig(t, Options{}, app.Config{Marks: again})
	got, err := r2.api().Attention(ctx)
	if err != nil || len(got.Muted) != 1 || got.Muted[0] != id || !got.GlobalMute {
		t.Errorf("another server's answer: %+v, %v", got, err)
	}
	if !got.Read[id].Equal(read[id]) {
		t.Errorf("read marks %v, want %v", got.Read, read)
	}
}

// TestUnreadCountsTheListing: the marks' answers count every unread
// session of the sidebar's listing (the archive left out), not only the
// page's, and "mark all read" marks every one of them, leaving the
// archive's as they were.
func TestUnreadCountsTheListing(t *testing.T) {
	marks, err := own.OpenAttention("", time.UnixMilli(0)) // every session unread
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Options{}, app.Config{Marks: marks})
	items := r.items()
	if len(items) < 3 {
		t.Fatalf("%d sessions", len(items))
	}
	api, ctx := r.api(), t.Context()
	yes := true
	if _, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{items[0].ID}, Archived: &yes}); err != nil {
		t.Fatal(err)
	}
	unread := func(a apitype.AttentionAnswer, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a.Unread
	}
	n := len(items) - 1
	if got := unread(api.Attention(ctx)); got != n {
		t.Errorf("unread %d, want %d (every session but the archived one)", got, n)
	}
	if got := unread(api.MarkRead(ctx, items[1].ID)); got != n-1 {
		t.Errorf("after one read: unread %d, want %d", got, n-1)
	}
	// The page's repeated ask (js/attention.js) is the count alone.
	if got := r.json("GET", "/api/attention?only=unread", nil, 200); !maps.Equal(got, map[string]any{"unread": float64(n - 1)}) {
		t.Errorf("count only: %v, want unread %d alone", got, n-1)
	}
	if got, err := api.UnreadCount(ctx); err != nil || got != n-1 {
		t.Errorf("UnreadCount %d, %v, want %d", got, err, n-1)
	}
	a, err := api.MarkAllRead(ctx)
	if got := unread(a, err); got != 0 {
		t.Errorf("after mark all read: unread %d", got)
	}
	if _, marked := a.Read[items[0].ID]; marked || len(a.Read) != n {
		t.Errorf("marks %v: want the %d listed sessions, not the archived one", a.Read, n)
	}
}

// BenchmarkUnreadCount is the count every marks answer carries, over
// 100,000 sessions with a mark for one in ten: when every session had
// activity since the marks began (the worst case), and when one in a
// hundred did (the others are older than piweb's marks).
func BenchmarkUnreadCount(b *testing.B) {
	cat := catalog.Static()
	read := map[string]time.Time{}
	const base = 1_700_000_000_000
	for i := range 100_000 {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		cat.Put(catalog.Meta{ID: id, Path: fmt.Sprintf("/s/%d.jsonl", i), Modified: float64(base + i)})
		if i%10 == 0 {
			read[id] = time.UnixMilli(base + 200_000)
		}
	}
	order, _ := own.OpenOrder("")
	s := &Server{cat: cat, order: order}
	for _, c := range []struct {
		name   string
		since  int64
		unread int
	}{{"all active since", 0, 90_000}, {"1 in 100 active since", base + 99_000, 900}} {
		b.Run(c.name, func(b *testing.B) {
			marks, _ := own.OpenAttention("", time.UnixMilli(c.since))
			st, _ := marks.MarkRead(read, nil)
			b.ReportAllocs()
			for b.Loop() {
				if a := s.attentionAnswer(st); a.Unread != c.unread {
					b.Fatalf("unread %d, want %d", a.Unread, c.unread)
				}
			}
		})
	}
}
