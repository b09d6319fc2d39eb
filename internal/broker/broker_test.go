package broker

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
)

func seqs(evs []Event) []uint64 {
	var out []uint64
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func publishN(b *Broker[Event], topic string, n int) {
	for i := range n {
		b.Publish(topic, Event{Type: "t", Raw: []byte(fmt.Sprintf(`{"i":%d}`, i))})
	}
}

func TestResume(t *testing.T) {
	tests := []struct {
		name     string
		base     uint64
		after    uint64
		want     []uint64
		complete bool
	}{
		{"up to date", 0, 6, nil, true},
		{"kept", 0, 4, []uint64{5, 6}, true},
		{"just kept", 0, 2, []uint64{3, 4, 5, 6}, true},
		{"one evicted", 0, 1, []uint64{3, 4, 5, 6}, false},
		{"from start, some evicted", 0, 0, []uint64{3, 4, 5, 6}, false},
		{"from the future", 0, 99, nil, false},
		{"based, kept", 1000, 1004, []uint64{1005, 1006}, true},
		{"based, earlier run", 1000, 7, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New[Event](Options{KeepEvents: 4, Base: tt.base})
			publishN(b, "a", 6)
			s := b.NewSub()
			defer s.Close()
			replay, complete, err := s.Resume("a", tt.after)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, seqs(replay)); diff != "" || complete != tt.complete {
				t.Errorf("complete %v (want %v), replay (-want +got):\n%s", complete, tt.complete, diff)
			}
			last := b.Publish("a", Event{Type: "t", Raw: []byte("{}")})
			if got := testkit.Drain(s.C); len(got) != 1 || got[0].Seq != last.Seq || last.Seq != b.Last("a") {
				t.Errorf("live %v, published %d", seqs(got), last.Seq)
			}
		})
	}
}

func TestKeepBounds(t *testing.T) {
	tests := []struct {
		name         string
		opts         Options
		size, n      int
		events, most int
	}{
		{"by count", Options{KeepEvents: 3}, 10, 20, 3, 30},
		{"by bytes", Options{KeepBytes: 100}, 30, 20, 3, 100},
		{"newest always kept", Options{KeepBytes: 10}, 50, 5, 1, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New[Event](tt.opts)
			for range tt.n {
				b.Publish("a", Event{Type: "t", Raw: make([]byte, tt.size)})
			}
			events, bytes := b.RetainedBytes("a")
			if events != tt.events || bytes > tt.most {
				t.Errorf("kept %d events, %d bytes; want %d events, at most %d bytes", events, bytes, tt.events, tt.most)
			}
		})
	}
}

// TestSlowSubscriberCut: a full subscriber is cut off and marked lagging
// while the others and Publish carry on; it resumes from its last number.
func TestSlowSubscriberCut(t *testing.T) {
	b := New[Event](Options{QueueEvents: 3})
	slow, fast := b.NewSub(), b.NewSub()
	slow.Follow("a")
	fast.Follow("a")
	var got []uint64
	for range 10 {
		b.Publish("a", Event{Type: "t", Raw: []byte("{}")})
		got = append(got, seqs(testkit.Drain(fast.C))...)
	}
	if len(got) != 10 || fast.Lagged() {
		t.Fatalf("fast got %v lagged=%v", got, fast.Lagged())
	}
	first := testkit.Drain(slow.C)
	if !slow.Lagged() || len(first) != 3 {
		t.Fatalf("slow: lagged=%v got %v", slow.Lagged(), seqs(first))
	}
	if _, _, err := slow.Resume("a", 0); err != ErrClosed {
		t.Errorf("resume on a cut Sub: %v", err)
	}
	again := b.NewSub()
	replay, complete, _ := again.Resume("a", first[len(first)-1].Seq)
	if !complete || fmt.Sprint(seqs(replay)) != "[4 5 6 7 8 9 10]" {
		t.Errorf("resume: complete=%v %v", complete, seqs(replay))
	}
	again.Close()
	if n := b.Subscribers("a"); n != 1 {
		t.Errorf("subscribers = %d", n)
	}
	b.Close()
	if _, open := <-fast.C; open || fast.Lagged() {
		t.Error("Close did not end subscriptions cleanly")
	}
}

// TestTopicsIndependent: one Sub over several topics gets each topic's
// events in order, and unsubscribing one leaves the others.
func TestTopicsIndependent(t *testing.T) {
	b := New[Event](Options{})
	s := b.NewSub()
	defer s.Close()
	s.Follow("a")
	s.Follow("b")
	b.Publish("a", Event{Type: "t", Value: 1})
	b.Publish("b", Event{Type: "t", Value: 2})
	s.Unsubscribe("a")
	b.Publish("a", Event{Type: "t", Value: 3})
	b.Publish("b", Event{Type: "t", Value: 4})
	var got []any
	for _, e := range testkit.Drain(s.C) {
		got = append(got, e.Value)
	}
	if diff := cmp.Diff([]any{1, 2, 4}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCollectIdle: a topic without subscribers is dropped after Idle, and
// a recreated topic's numbers start above the dropped one's, so an old
// number asks for a resync.
func TestCollectIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New[Event](Options{Idle: time.Minute})
		publishN(b, "a", 3)
		s := b.NewSub()
		s.Follow("b")
		time.Sleep(59 * time.Second)
		if n := b.Collect(); n != 0 {
			t.Errorf("collected %d topics before Idle", n)
		}
		time.Sleep(time.Second)
		if n := b.Collect(); n != 1 || b.Topics() != 1 {
			t.Errorf("collected %d, %d left; want 1, 1 (b has a subscriber)", n, b.Topics())
		}
		s2 := b.NewSub()
		replay, complete, _ := s2.Resume("a", 2)
		if complete || len(replay) != 0 {
			t.Errorf("old number on a new topic: complete=%v replay %v", complete, seqs(replay))
		}
		if e := b.Publish("a", Event{Type: "t"}); e.Seq != 4 {
			t.Errorf("new topic's first number %d, want 4", e.Seq)
		}
	})
}

// TestSubscribeRacesCollect: subscriptions made while Collect runs are
// never lost, and a subscriber sees every event published after Resume
// exactly once.
func TestSubscribeRacesCollect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New[Event](Options{Idle: time.Nanosecond})
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Go(func() {
				name := fmt.Sprint("t", i%5)
				s := b.NewSub()
				defer s.Close()
				_, _, err := s.Resume(name, b.Last(name))
				if err != nil {
					t.Error(err)
				}
				e := b.Publish(name, Event{Type: "t", Value: i})
				for got := range s.C {
					if got.Value == i {
						if got.Seq != e.Seq {
							t.Errorf("seq %d, published %d", got.Seq, e.Seq)
						}
						return
					}
				}
				t.Errorf("subscriber %d lost its event", i)
			})
			wg.Go(func() { b.Collect() })
		}
		wg.Wait()
	})
}

func TestClosedTopic(t *testing.T) {
	b := New[Event](Options{})
	s := b.NewSub()
	s.Follow("a")
	b.CloseTopic("a")
	if _, open := <-s.C; open || s.Lagged() {
		t.Error("CloseTopic did not end the subscription cleanly")
	}
	if e := b.Publish("a", Event{Type: "t"}); e.Seq != 0 {
		t.Errorf("publish on a closed topic numbered %d", e.Seq)
	}
	if err := b.NewSub().Follow("a"); err != ErrClosed {
		t.Errorf("follow a closed topic: %v", err)
	}
}

func TestRetainedNewestFirst(t *testing.T) {
	b := New[Event](Options{})
	publishN(b, "a", 5)
	var got []uint64
	b.Retained("a", func(e Event) bool { got = append(got, e.Seq); return len(got) < 3 })
	if diff := cmp.Diff([]uint64{5, 4, 3}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// BenchmarkPublishFanout publishes a 2 KB event to 1 to 100 subscribers
// that drain concurrently: with 100, a busy piweb's SSE fan-out without
// the network.
func BenchmarkPublishFanout(b *testing.B) {
	for _, n := range []int{1, 8, 64, 100} {
		b.Run(fmt.Sprint(n, "subs"), func(b *testing.B) {
			br := New[Event](Options{})
			line := make([]byte, 2000)
			var wg sync.WaitGroup
			for range n {
				s := br.NewSub()
				s.Follow("a")
				wg.Go(func() {
					for range s.C {
					}
				})
			}
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				br.Publish("a", Event{Type: "message_update", Raw: line})
			}
			br.Close()
			wg.Wait()
		})
	}
}

// held is an in-process Value that says what it holds.
type held int

func (h held) Size() int { return int(h) }

// TestValueCounts: an event counts what its Value holds as well as its
// Raw bytes, so a topic bounded in bytes does not keep large values
// counted as nothing (issue 21.6); a Value that does not say counts 0.
func TestValueCounts(t *testing.T) {
	b := New[Event](Options{KeepBytes: 10_000})
	for range 5 {
		b.Publish("a", Event{Raw: []byte(`{}`), Value: held(4000)})
	}
	b.Publish("b", Event{Raw: []byte(`{}`), Value: "opaque"})
	got := [][2]int{}
	for _, topic := range []string{"a", "b"} {
		events, bytes := b.RetainedBytes(topic)
		got = append(got, [2]int{events, bytes})
	}
	if want := [][2]int{{2, 8004}, {1, 2}}; !cmp.Equal(got, want) {
		t.Errorf("retained (events, bytes) %v, want %v", got, want)
	}
}

// TestClock: Options.Now stamps the events and idles the topics, and Now
// reads it, so that a test can move time without sleeping.
func TestClock(t *testing.T) {
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	b := New[Event](Options{Idle: time.Minute, Now: func() time.Time { return at }})
	e := b.Publish("a", Event{Type: "t", Raw: []byte(`{}`)})
	if !e.At.Equal(at) || !b.Now().Equal(at) {
		t.Errorf("event at %v, broker now %v; want %v", e.At, b.Now(), at)
	}
	at = at.Add(time.Minute)
	if n := b.Collect(); n != 1 {
		t.Errorf("collected %d topics a minute later on the broker's clock, want 1", n)
	}
}
