package broker

import "slices"

// tap is one caller of Tap.
type tap[E Payload[E]] struct{ f func(E) }

// Tap calls f with every event published on topic from now on, in the
// publisher's goroutine, once the event is kept and offered to the
// subscribers, until the returned function is called. Unlike a
// subscriber a tap is never cut off and misses nothing, so it is for what
// must be decided when an event is made (a push notification), not when
// a reader gets to it; f must be quick (start slow work in the
// background).
func (b *Broker[E]) Tap(topic string, f func(E)) (untap func()) {
	tp := &tap[E]{f: f}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taps == nil {
		b.taps = map[string][]*tap[E]{}
	}
	b.taps[topic] = append(slices.Clone(b.taps[topic]), tp)
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		rest := slices.DeleteFunc(slices.Clone(b.taps[topic]), func(x *tap[E]) bool { return x == tp })
		if len(rest) == 0 {
			delete(b.taps, topic)
		} else {
			b.taps[topic] = rest
		}
	}
}
