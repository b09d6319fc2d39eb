package index

import (
	"time"

	"piweb/internal/broker"
)

// changesTopic is the index's one topic in its broker.
const changesTopic = "changes"

// Subscription receives the index's change events on C, in order. C is
// closed when the subscriber falls more than 1,024 events behind (Lagged
// is then true: subscribe again and reload) or on Close.
type Subscription = broker.Sub[Event]

// newEvents is the index's broker. A subscriber cut off as too slow
// reloads, so little is kept for replay.
func newEvents() *broker.Broker[Event] {
	return broker.New[Event](broker.Options{KeepEvents: 1, QueueEvents: 1024})
}

// Stamp returns e unchanged: index events need no number (broker.Payload).
func (e Event) Stamp(string, uint64, time.Time) Event { return e }

// Size approximates e's memory for the replay bound.
func (e Event) Size() int {
	return 64 + len(e.Path) + len(e.SessionID) + len(e.Problem) + 40*len(e.Appended) + len(e.Lines)
}

// Subscribe returns a subscription to change events from now on. Events
// are published without blocking the indexer.
func (ix *Index) Subscribe() *Subscription {
	sub := ix.events.NewSub()
	sub.Follow(changesTopic)
	return sub
}

func (ix *Index) publish(ev Event) {
	ix.events.Publish(changesTopic, ev)
}

// subscribed reports whether anyone listens for events.
func (ix *Index) subscribed() bool {
	return ix.events.Subscribers(changesTopic) > 0
}
