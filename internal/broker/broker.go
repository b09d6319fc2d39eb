// Package broker is piweb's one publish/subscribe mechanism for every live
// thing: index changes, session entries, agent events and file changes.
//
// A Broker holds named topics. Each published event gets the next sequence
// number of its topic and the time it was received, and the newest events of
// each topic are kept for replay, bounded by count and by bytes, so that a
// client that reconnects with the last sequence number it saw (an SSE
// Last-Event-ID) misses nothing that is still kept and is told when
// something was lost. Publishing never blocks: a subscriber whose queue is
// full is cut off (its channel closed, Lagged true) and resumes from its
// last sequence number. Topics nobody subscribes to and nothing was
// published on for Options.Idle are collected by Collect; subscribing
// creates the topic and registers the subscriber under the same lock that
// collection takes, so a subscription can never be lost to collection, and
// the replay it returns and the live events it then receives neither overlap
// nor leave a gap.
package broker

import (
	"sync"
	"time"

	"piweb/internal/jsjson"
	"piweb/internal/opt"
)

// Defaults for Options fields left zero.
const (
	DefaultKeepEvents  = 4096
	DefaultKeepBytes   = 8 << 20
	DefaultQueueEvents = 1024
	DefaultIdle        = 10 * time.Minute
)

// Options bounds a Broker. Zero fields take the defaults above.
type Options struct {
	// KeepEvents and KeepBytes bound the events kept per topic for replay;
	// the newest event is always kept, however large.
	KeepEvents, KeepBytes int
	// QueueEvents is how many events a subscriber may have waiting before
	// it is cut off.
	QueueEvents int
	// Idle is how long a topic without subscribers and without publishes
	// lives before Collect drops it with its replay buffer.
	Idle time.Duration
	// Base is the sequence space's starting point: the first topic's first
	// event is Base+1, and every topic created later starts above every
	// number already used, so a number from a topic that was collected (or,
	// with a clock-based Base, from an earlier process) is recognisably
	// older than the topic's start.
	Base uint64
	// Now is the clock events are stamped with and topics idle by (nil:
	// time.Now); a test moves it instead of sleeping.
	Now func() time.Time
}

// Payload is what a Broker carries: a value that can be stamped with its
// sequence number and arrival time and that knows its size in bytes (what
// counts against KeepBytes).
type Payload[E any] interface {
	Stamp(topic string, seq uint64, at time.Time) E
	Size() int
}

// Event is the general payload: one encoded event. Topic names its topic,
// Seq is unique and increasing within the topic and At is when the broker
// received it (all three set by Publish). Raw is one JSON object (what a browser receives); Type
// is its type, skimmed by the publisher; Value is an optional in-process
// payload for subscribers in the same program, which must say its size
// (Size() int) if it holds more than Raw does. None of them may be
// modified after Publish.
type Event struct {
	Topic string
	Seq   uint64
	At    time.Time
	Type  string
	Raw   []byte
	Value any
}

// Stamp returns e as published on topic, numbered seq, received at.
func (e Event) Stamp(topic string, seq uint64, at time.Time) Event {
	e.Topic, e.Seq, e.At = topic, seq, at
	return e
}

// Size is what e holds: len(Raw), plus the size of a Value that tells
// its own (Size() int); a Value that does not is assumed to hold nothing
// beyond Raw.
func (e Event) Size() int {
	n := len(e.Raw)
	if v, ok := e.Value.(interface{ Size() int }); ok {
		n += v.Size()
	}
	return n
}

// Field returns the raw JSON of a top-level member of Raw, or nil. It skims
// without decoding.
func (e Event) Field(key string) []byte { return jsjson.FirstField(e.Raw, key) }

type kept[E any] struct {
	seq  uint64
	size int
	e    E
}

// Broker is a set of topics. Its methods are safe for concurrent use.
type Broker[E Payload[E]] struct {
	opts Options

	mu     sync.Mutex
	high   uint64 // highest sequence number ever issued by any topic
	topics map[string]*topic[E]
	taps   map[string][]*tap[E] // by topic, replaced on change (tap.go)
	closed bool
}

type topic[E Payload[E]] struct {
	born    uint64    // first sequence number of this incarnation
	seq     uint64    // last issued (born-1 before any)
	evicted uint64    // highest number no longer kept (born-1 before any)
	ring    []kept[E] // oldest first
	bytes   int
	subs    map[*Sub[E]]struct{}
	last    time.Time // last publish or unsubscribe
	closed  bool
}

// New returns a Broker with opts, zero fields defaulted.
func New[E Payload[E]](opts Options) *Broker[E] {
	opt.Positive(&opts.KeepEvents, DefaultKeepEvents)
	opt.Positive(&opts.KeepBytes, DefaultKeepBytes)
	opt.Positive(&opts.QueueEvents, DefaultQueueEvents)
	opt.Positive(&opts.Idle, DefaultIdle)
	opt.Clock(&opts.Now)
	return &Broker[E]{opts: opts, high: opts.Base, topics: map[string]*topic[E]{}}
}

// Now reads the broker's clock, which stamped each event's At: a reader of
// At (a page told when events were received) compares with this.
func (b *Broker[E]) Now() time.Time { return b.opts.Now() }

// topicLocked returns the named topic, creating it above every sequence
// number issued so far.
func (b *Broker[E]) topicLocked(name string) *topic[E] {
	t := b.topics[name]
	if t == nil {
		born := b.high + 1
		t = &topic[E]{born: born, seq: born - 1, evicted: born - 1, subs: map[*Sub[E]]struct{}{}, last: b.opts.Now()}
		b.topics[name] = t
	}
	return t
}

// Publish numbers an event, keeps it for replay and offers it to every
// subscriber of the topic without blocking; a subscriber with a full queue
// is cut off. Then it calls the topic's taps (Tap) with it. It returns the
// event as stored (unstamped when the topic or the broker is closed and
// the event was dropped).
func (b *Broker[E]) Publish(name string, e E) E {
	b.mu.Lock()
	e, ok := b.publishLocked(name, e)
	taps := b.taps[name]
	b.mu.Unlock()
	if ok {
		for _, tp := range taps {
			tp.f(e)
		}
	}
	return e
}

// publishLocked is Publish's work under the lock; ok is false when the
// event was dropped.
func (b *Broker[E]) publishLocked(name string, e E) (_ E, ok bool) {
	if b.closed {
		return e, false
	}
	t := b.topicLocked(name)
	if t.closed {
		return e, false
	}
	t.seq++
	b.high = max(b.high, t.seq)
	now := b.opts.Now()
	e = e.Stamp(name, t.seq, now)
	t.last = now
	b.keep(t, kept[E]{t.seq, e.Size(), e})
	for s := range t.subs {
		select {
		case s.c <- e:
		default:
			s.lagged = true
			b.cutLocked(s)
		}
	}
	return e, true
}

// keep appends e to the topic's ring and evicts the oldest events beyond
// the bounds, always keeping e itself.
func (b *Broker[E]) keep(t *topic[E], k kept[E]) {
	t.ring = append(t.ring, k)
	t.bytes += k.size
	n := 0
	for len(t.ring)-n > 1 && (len(t.ring)-n > b.opts.KeepEvents || t.bytes > b.opts.KeepBytes) {
		t.bytes -= t.ring[n].size
		t.evicted = t.ring[n].seq
		n++
	}
	clear(t.ring[:n]) // release the payloads
	// Slicing off the front shrinks cap, so append soon reallocates and
	// copies only the live part.
	t.ring = t.ring[n:]
}

// Last is the topic's newest sequence number, or the number just before
// its first one when nothing was published (a topic that does not exist
// yet is created, so that the number stays valid for Resume).
func (b *Broker[E]) Last(name string) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.topicLocked(name).seq
}

// Subscribers counts the topic's subscribers.
func (b *Broker[E]) Subscribers(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.topics[name]; t != nil {
		return len(t.subs)
	}
	return 0
}

// Retained calls fn on the topic's kept events, newest first, until fn
// returns false. fn runs under the broker's lock: it must be quick and must
// not call the broker.
func (b *Broker[E]) Retained(name string, fn func(E) bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topics[name]
	if t == nil {
		return
	}
	for i := len(t.ring) - 1; i >= 0; i-- {
		if !fn(t.ring[i].e) {
			return
		}
	}
}

// RetainedBytes reports how many events and bytes the topic keeps.
func (b *Broker[E]) RetainedBytes(name string) (events, bytes int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.topics[name]; t != nil {
		return len(t.ring), t.bytes
	}
	return 0, 0
}

// CloseTopic ends every subscription to the topic (not as lagging) and
// makes later publishes to it no-ops until it is collected.
func (b *Broker[E]) CloseTopic(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topicLocked(name)
	t.closed = true
	for s := range t.subs {
		b.cutLocked(s)
	}
}

// Drop forgets a topic that has no subscribers, freeing its replay buffer
// at once (a topic made for one connection).
func (b *Broker[E]) Drop(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.topics[name]; t != nil && len(t.subs) == 0 {
		delete(b.topics, name)
	}
}

// Collect drops the topics that have no subscribers and saw no publish or
// unsubscribe for Options.Idle, with their replay buffers. It reports how
// many it dropped.
func (b *Broker[E]) Collect() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for name, t := range b.topics {
		if len(t.subs) == 0 && b.opts.Now().Sub(t.last) >= b.opts.Idle {
			delete(b.topics, name)
			n++
		}
	}
	return n
}

// Topics counts the live topics.
func (b *Broker[E]) Topics() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.topics)
}

// Close ends every subscription (not as lagging); later publishes and
// subscriptions are no-ops.
func (b *Broker[E]) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for _, t := range b.topics {
		for s := range t.subs {
			b.cutLocked(s)
		}
	}
}
