package agent

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/broker"
	"piweb/internal/testkit"
)

func ev(i int) Event {
	return NewEvent("t", map[string]int{"i": i})
}

func seqs(evs []Event) []uint64 {
	var out []uint64
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func TestHubReplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		after    uint64
		want     []uint64
		complete bool
	}{
		{6, nil, true},
		{4, []uint64{5, 6}, true},
		{2, []uint64{3, 4, 5, 6}, true},
		{1, []uint64{3, 4, 5, 6}, false}, // 2 was evicted
		{0, []uint64{3, 4, 5, 6}, false},
		{99, nil, false}, // from an older Hub: resync
	}
	for _, tt := range tests {
		h := hubOn(newBroker(broker.Options{KeepEvents: 4}), "t")
		for i := 0; i < 6; i++ {
			h.Publish(ev(i))
		}
		replay, sub, complete := h.Subscribe(tt.after)
		if diff := cmp.Diff(tt.want, seqs(replay)); diff != "" || complete != tt.complete {
			t.Errorf("after %d: complete %v, replay (-want +got):\n%s", tt.after, complete, diff)
		}
		h.Publish(ev(100))
		if got := testkit.Drain(sub.C); len(got) != 1 || got[0].Seq != h.Last() {
			t.Errorf("after %d: live %v", tt.after, seqs(got))
		}
		sub.Close()
	}
}

func TestHubRingBytes(t *testing.T) {
	t.Parallel()
	h := hubOn(newBroker(broker.Options{KeepBytes: 100}), "t")
	for i := 0; i < 50; i++ {
		h.Publish(ev(i))
	}
	ring, bytes := h.b.RetainedBytes(h.topic)
	if bytes > 100 || ring == 0 {
		t.Errorf("ring holds %d bytes in %d events", bytes, ring)
	}
}

// TestHubSlowSubscriber: a full subscriber is dropped and marked lagging
// while the others (and Publish) carry on; it resumes from its last Seq.
func TestHubSlowSubscriber(t *testing.T) {
	t.Parallel()
	h := hubOn(newBroker(broker.Options{QueueEvents: 3}), "t")
	_, slow, _ := h.Subscribe(0)
	_, fast, _ := h.Subscribe(0)
	var got []uint64
	for i := 0; i < 10; i++ {
		h.Publish(ev(i))
		got = append(got, seqs(testkit.Drain(fast.C))...)
	}
	if len(got) != 10 || fast.Lagged() {
		t.Fatalf("fast got %v lagged=%v", got, fast.Lagged())
	}
	first := testkit.Drain(slow.C)
	if !slow.Lagged() || len(first) != 3 {
		t.Fatalf("slow: lagged=%v got %v", slow.Lagged(), seqs(first))
	}
	if _, open := <-slow.C; open {
		t.Fatal("slow channel still open")
	}
	replay, again, complete := h.Subscribe(first[len(first)-1].Seq)
	if !complete || fmt.Sprint(seqs(replay)) != "[4 5 6 7 8 9 10]" {
		t.Errorf("resume: complete=%v %v", complete, seqs(replay))
	}
	again.Close()
	if h.Subscribers() != 1 {
		t.Errorf("subscribers = %d", h.Subscribers())
	}
	h.Close()
	if _, open := <-fast.C; open || fast.Lagged() {
		t.Error("Close did not end subscriptions cleanly")
	}
}

func BenchmarkHubPublish(b *testing.B) {
	h := NewHub()
	line := make([]byte, 2000)
	subs := make([]*Subscription, 8)
	for i := range subs {
		_, subs[i], _ = h.Subscribe(0)
		go func(s *Subscription) {
			for range s.C {
			}
		}(subs[i])
	}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		h.Publish(Event{Type: "message_update", Raw: line})
	}
	h.Close()
}
