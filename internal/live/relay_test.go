package live

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/agent"
	"piweb/internal/broker"
	"piweb/internal/testkit"
)

// TestWorkersRelayResubscribes is issue 21.7: the workers relay (running
// flags, attention, push) ended for good when the broker cut it off as
// too slow. Now it resumes after the last note it handled: nothing is
// lost while the topic still keeps what came meanwhile, and the index
// topic says "reset" when it does not.
func TestWorkersRelayResubscribes(t *testing.T) {
	for _, c := range []struct {
		name      string
		keep      int
		wantSeqs  []int // by position in the topic
		wantReset bool
	}{
		{"kept", 100, []int{1, 2, 3, 4, 5, 6, 7, 8}, false},
		{"evicted", 2, []int{1, 2, 3, 5, 6, 7, 8}, true}, // 2 and 3 were queued; 4 is gone
	} {
		t.Run(c.name, func(t *testing.T) {
			b := broker.New[broker.Event](broker.Options{QueueEvents: 2, KeepEvents: c.keep})
			l := &Relay{events: b, bg: broker.NewGroup()}
			defer l.Close()
			sub := b.NewSub()
			sub.Follow(agent.WorkersTopic)
			src := l.workersSource(sub)
			var mu sync.Mutex
			var seqs []uint64
			entered, gate := make(chan struct{}), make(chan struct{})
			inner := src.handle
			src.handle = func(ev broker.Event) {
				mu.Lock()
				first := len(seqs) == 0
				seqs = append(seqs, ev.Seq)
				mu.Unlock()
				if first {
					close(entered)
					<-gate // a slow relay: the queue overflows meanwhile
				}
				inner(ev)
			}
			l.bg.Go(func() { relay(l.bg.Done(), src) })
			var pub []uint64
			publish := func() { pub = append(pub, b.Publish(agent.WorkersTopic, broker.Event{Raw: []byte(`{}`)}).Seq) }
			publish()
			<-entered
			for range 5 {
				publish() // the third is one too many: cut off
			}
			close(gate)
			testkit.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(seqs) >= len(c.wantSeqs)-2
			}, 5*time.Second, "the relay handles the replay")
			publish()
			publish()
			var want []uint64
			for _, i := range c.wantSeqs {
				want = append(want, pub[i-1])
			}
			testkit.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(seqs) >= len(want)
			}, 5*time.Second, "the relay handles what came after it was cut off")
			mu.Lock()
			got := slices.Clone(seqs)
			mu.Unlock()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("handled (-want +got):\n%s", diff)
			}
			replay, _, _ := b.NewSub().Resume(IndexTopic, 0)
			if reset := len(replay) == 1 && string(replay[0].Raw) == `{"type":"reset"}`; reset != c.wantReset {
				t.Errorf("index topic %d events, reset %v, want %v", len(replay), reset, c.wantReset)
			}
		})
	}
}
