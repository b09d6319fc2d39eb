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
	id := r.sessions()[0]["id"].(string)
	before := time.Now()
	st := r.json("POST", "/api/attention/read", map[string]any{"ids": []string{id, "no-such-session"}}, 200)
	read, _ := st["read"].(map[string]any)
	at, _ := time.Parse(time.RFC3339Nano, read[id].(string))
	if at.Before(before.Add(-time.Second)) || len(read) != 1 {
		t.Errorf("read marks %v", read)
	}
	r.json("POST", "/api/attention/mute", map[string]any{"id": id, "muted": true}, 200)
	r.json("POST", "/api/attention/mute", map[string]any{"muted": true}, 200)

	again, err := own.OpenAttention(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r2 := newRig(t, Options{}, app.Config{Marks: again})
	got := r2.json("GET", "/api/attention", nil, 200)
	if m, _ := got["muted"].([]any); len(m) != 1 || m[0] != id || got["globalMute"] != true {
		t.Errorf("another server's answer: %v", got)
	}
	if rr, _ := got["read"].(map[string]any); rr[id] != read[id] {
		t.Errorf("read marks %v, want %v", rr, read)
	}
}
