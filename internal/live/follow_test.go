package live

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/index"
)

// TestFollowNext: a follow turns the index's file events into what its
// clients are told: only lines past the offset their view reaches (a
// line split across two events' bounds is not repeated), a reload for a
// gap, a rewrite or a reset, session_missing once for a removal.
func TestFollowNext(t *testing.T) {
	l1 := `{"type":"message","id":"a1","parentId":null}` + "\n"
	l2 := `{"type":"label","id":"b2","parentId":"a1"}` + "\n"
	n1, n2 := int64(len(l1)), int64(len(l2))
	for _, c := range []struct {
		name  string
		start follow
		ev    index.Event
		want  any
		end   int64
	}{
		{"append", follow{end: 100}, index.Event{From: 100, Lines: []byte(l1 + l2), End: 100 + n1 + n2},
			entriesAppended{Type: "entries_appended", Entries: raws(l1, l2), Leaf: ptr("b2"), Size: 100 + n1 + n2}, 100 + n1 + n2},
		{"partly seen", follow{end: 100 + n1}, index.Event{From: 100, Lines: []byte(l1 + l2), End: 100 + n1 + n2},
			entriesAppended{Type: "entries_appended", Entries: raws(l2), Leaf: ptr("b2"), Size: 100 + n1 + n2}, 100 + n1 + n2},
		{"mid-line offset", follow{end: 101}, index.Event{From: 100, Lines: []byte(l1 + l2), End: 100 + n1 + n2},
			entriesAppended{Type: "entries_appended", Entries: raws(l2), Leaf: ptr("b2"), Size: 100 + n1 + n2}, 100 + n1 + n2},
		{"already seen", follow{end: 500}, index.Event{From: 100, Lines: []byte(l1), End: 100 + n1}, nil, 500},
		{"gap", follow{end: 50}, index.Event{From: 100, Lines: []byte(l1), End: 100 + n1},
			sessionRewritten{Type: "session_rewritten", Size: 100 + n1}, 100 + n1},
		{"reset", follow{end: 100}, index.Event{Reset: true, End: 70}, sessionRewritten{Type: "session_rewritten", Size: 70}, 70},
		{"lost", follow{end: -1}, index.Event{From: 0, Lines: []byte(l1), End: n1}, sessionRewritten{Type: "session_rewritten", Size: n1}, n1},
		{"removed", follow{end: 100}, index.Event{Removed: true}, eventType{Type: "session_missing"}, 100},
		{"removed again", follow{end: 100, missing: true}, index.Event{Removed: true}, nil, 100},
		{"problem", follow{end: 100}, index.Event{Problem: "unreadable"}, nil, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			fl := c.start
			got := fl.next(c.ev)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
			if fl.end != c.end {
				t.Errorf("end %d, want %d", fl.end, c.end)
			}
		})
	}
}

func raws(lines ...string) []json.RawMessage {
	var out []json.RawMessage
	for _, l := range lines {
		out = append(out, json.RawMessage(l[:len(l)-1]))
	}
	return out
}

func ptr(s string) *string { return &s }

// TestWatchLoadsOutsideLock: while one session's hello parses it (a huge
// file), another session's follow starts and its appends are relayed;
// the appends of the loading session that came meanwhile are relayed
// after the parse, from its end (a line it already holds is not sent
// twice).
func TestWatchLoadsOutsideLock(t *testing.T) {
	l1 := `{"type":"message","id":"a1","parentId":null}` + "\n"
	l2 := `{"type":"label","id":"b2","parentId":"a1"}` + "\n"
	n1, n2 := int64(len(l1)), int64(len(l2))
	type sent struct {
		Topic string
		Event any
	}
	var got []sent // written under f.mu, read after
	pub := func(topic string, v any) { got = append(got, sent{topic, v}) }
	f := &follows{m: map[string]*follow{}}
	started, release, loaded := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		f.watch("big", "/big.jsonl", func() int64 { close(started); <-release; return 100 + n1 }, pub)
		close(loaded)
	}()
	<-started
	others := make(chan struct{})
	go func() {
		f.watch("other", "/other.jsonl", func() int64 { return 100 }, pub)
		f.apply(index.Event{Path: "/other.jsonl", From: 100, Lines: []byte(l1), End: 100 + n1}, pub)
		f.apply(index.Event{Path: "/big.jsonl", From: 100, Lines: []byte(l1 + l2), End: 100 + n1 + n2}, pub)
		close(others)
	}()
	select {
	case <-others:
	case <-time.After(10 * time.Second):
		t.Fatal("other sessions' follows waited for one session's parse")
	}
	close(release)
	<-loaded
	want := []sent{
		{SessionTopic("/other.jsonl"), entriesAppended{Type: "entries_appended", Entries: raws(l1), Leaf: ptr("a1"), Size: 100 + n1}},
		{SessionTopic("/big.jsonl"), entriesAppended{Type: "entries_appended", Entries: raws(l2), Leaf: ptr("b2"), Size: 100 + n1 + n2}},
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("published (-want +got):\n%s", diff)
	}
}
