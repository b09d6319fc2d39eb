package server

import (
	"testing"
	"time"

	"piweb/internal/app"
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
