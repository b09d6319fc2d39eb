package agent

import (
	"sync"
)

// Hub fans events out to any number of subscribers. It numbers events
// (Seq, from 1, never reused for the life of the Hub, across pi restarts)
// and keeps the most recent ones in a ring so that a reconnecting browser
// resumes after the last Seq it saw. Publish never blocks: a subscriber
// whose buffer is full is dropped and marked lagging; it resubscribes from
// its last Seq, which costs nothing if the ring still holds what it missed.
type Hub struct {
	mu       sync.Mutex
	seq      uint64
	ring     []Event // oldest first
	bytes    int
	maxN     int
	maxBytes int
	bufSize  int
	subs     map[*Subscription]struct{}
	closed   bool
}

// Ring and subscriber defaults: message_update lines can be tens of KB
// each, so the ring is bounded in bytes as well as in events.
const (
	DefaultRingEvents = 4096
	DefaultRingBytes  = 8 << 20
	DefaultSubBuffer  = 1024
)

// NewHub returns a Hub with the default limits.
func NewHub() *Hub {
	return &Hub{maxN: DefaultRingEvents, maxBytes: DefaultRingBytes, bufSize: DefaultSubBuffer,
		subs: map[*Subscription]struct{}{}}
}

// Subscription receives events on C, in Seq order without gaps. C is
// closed when the subscriber falls behind (Lagged reports true: resubscribe
// from the last Seq received), on Close, or when the Hub closes.
type Subscription struct {
	C      <-chan Event
	c      chan Event
	hub    *Hub
	lagged bool // guarded by hub.mu
}

// Lagged reports whether C was closed because the subscriber fell behind.
func (s *Subscription) Lagged() bool {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.lagged
}

// Close unsubscribes; C is closed.
func (s *Subscription) Close() {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.hub.drop(s)
}

// Publish numbers e, keeps it for replay and offers it to every subscriber.
func (h *Hub) Publish(e Event) Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return e
	}
	h.seq++
	e.Seq = h.seq
	h.keep(e)
	for s := range h.subs {
		select {
		case s.c <- e:
		default:
			s.lagged = true
			h.drop(s)
		}
	}
	return e
}

func (h *Hub) keep(e Event) {
	h.ring = append(h.ring, e)
	h.bytes += len(e.Raw)
	n := 0
	for len(h.ring)-n > 1 && (len(h.ring)-n > h.maxN || h.bytes > h.maxBytes) {
		h.bytes -= len(h.ring[n].Raw)
		n++
	}
	for i := 0; i < n; i++ {
		h.ring[i] = Event{} // release the line
	}
	// Slicing off the front shrinks cap, so append soon reallocates and
	// copies only the live part.
	h.ring = h.ring[n:]
}

func (h *Hub) drop(s *Subscription) {
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.c)
	}
}

// Subscribe returns the events after Seq `after` (the last one the caller
// has) that the ring still holds, and a subscription for everything later,
// with no gap and no duplicate between the two. complete is false when
// some events after `after` were already evicted: the caller must resync
// from a fresh snapshot (get_messages or the session file). A new client
// takes Last(), loads its snapshot, then subscribes after that Seq.
func (h *Hub) Subscribe(after uint64) (replay []Event, sub *Subscription, complete bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := make(chan Event, h.bufSize)
	sub = &Subscription{C: c, c: c, hub: h}
	if h.closed {
		close(c)
		return nil, sub, true
	}
	h.subs[sub] = struct{}{}
	if after > h.seq {
		// A Seq from an earlier Hub of this session (dropped while no one
		// listened): nothing here lines up with it.
		return nil, sub, false
	}
	if after == h.seq {
		return nil, sub, true
	}
	first := h.seq + 1 - uint64(len(h.ring)) // Seq of ring[0]
	complete = after+1 >= first
	i := 0
	if after >= first {
		i = int(after + 1 - first)
	}
	return append([]Event(nil), h.ring[i:]...), sub, complete
}

// Last is the Seq of the newest event (0 before any).
func (h *Hub) Last() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}

// Subscribers counts live subscriptions.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every subscription; later Publish calls are ignored.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		h.drop(s)
	}
}
