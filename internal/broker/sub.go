package broker

import (
	"errors"
)

// ErrClosed is returned when subscribing through a Sub that was cut off or
// closed, or to a topic or broker that was closed.
var ErrClosed = errors.New("broker: closed")

// Sub is one subscriber: it receives the live events of every topic it
// subscribed to on C, each topic's in sequence order without gaps. C is
// closed when the subscriber falls QueueEvents behind (Lagged is then true:
// resubscribe from the last sequence number of each topic), on Close, or
// when the broker closes. A Sub is safe for concurrent use.
type Sub[E Payload[E]] struct {
	C <-chan E

	b      *Broker[E]
	c      chan E
	topics map[string]*topic[E] // guarded by b.mu
	lagged bool                 // guarded by b.mu
	done   bool                 // guarded by b.mu
}

// NewSub returns a subscriber with no topics yet.
func (b *Broker[E]) NewSub() *Sub[E] {
	c := make(chan E, b.opts.QueueEvents)
	return &Sub[E]{C: c, b: b, c: c, topics: map[string]*topic[E]{}}
}

// Resume subscribes s to the topic and returns the kept events after
// sequence number after (the last one the caller has; 0 for everything
// kept). Live events published after the call are delivered on C; none of
// them is in the replay and none is missing between the two. complete is
// false when events after `after` were evicted, or when after is not a
// number of this topic's incarnation (from a collected topic, an earlier
// process or the future): the caller must then resync from a fresh
// snapshot. Subscribing again to a topic already subscribed only returns
// the replay.
func (s *Sub[E]) Resume(name string, after uint64) (replay []E, complete bool, err error) {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.done || b.closed {
		return nil, false, ErrClosed
	}
	t := b.topicLocked(name)
	if t.closed {
		return nil, false, ErrClosed
	}
	t.subs[s] = struct{}{}
	s.topics[name] = t
	if after == 0 {
		after = t.born - 1
	}
	if after > t.seq || after < t.born-1 {
		return nil, false, nil
	}
	complete = after >= t.evicted
	first := t.seq + 1 - uint64(len(t.ring)) // Seq of ring[0]
	i := 0
	if after >= first {
		i = int(after + 1 - first)
	}
	replay = make([]E, 0, len(t.ring)-i)
	for _, k := range t.ring[i:] {
		replay = append(replay, k.e)
	}
	return replay, complete, nil
}

// Follow subscribes s to the topic's events from now on, without replay.
func (s *Sub[E]) Follow(name string) error {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.done || b.closed {
		return ErrClosed
	}
	t := b.topicLocked(name)
	if t.closed {
		return ErrClosed
	}
	t.subs[s] = struct{}{}
	s.topics[name] = t
	return nil
}

// Unsubscribe removes the topic from s; C stays open for the others.
func (s *Sub[E]) Unsubscribe(name string) {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := s.topics[name]; t != nil {
		delete(t.subs, s)
		delete(s.topics, name)
		t.last = b.opts.Now()
	}
}

// Lagged reports whether C was closed because the subscriber fell behind.
func (s *Sub[E]) Lagged() bool {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.lagged
}

// Close unsubscribes from every topic and closes C. It is idempotent.
func (s *Sub[E]) Close() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.cutLocked(s)
}

// cutLocked removes s from all its topics and closes its channel once.
func (b *Broker[E]) cutLocked(s *Sub[E]) {
	if s.done {
		return
	}
	s.done = true
	now := b.opts.Now()
	for name, t := range s.topics {
		delete(t.subs, s)
		t.last = now
		delete(s.topics, name)
	}
	close(s.c)
}
