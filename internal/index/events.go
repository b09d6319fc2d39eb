package index

// Subscribe returns a channel of change events and a function that ends the
// subscription. Events are sent without blocking the indexer: a subscriber
// that falls more than 1024 events behind loses events (and should reload).
func (ix *Index) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 1024)
	ix.subMu.Lock()
	ix.subs[ch] = true
	ix.subMu.Unlock()
	return ch, func() {
		ix.subMu.Lock()
		defer ix.subMu.Unlock()
		if ix.subs[ch] {
			delete(ix.subs, ch)
			close(ch)
		}
	}
}

func (ix *Index) publish(ev Event) {
	ix.subMu.Lock()
	defer ix.subMu.Unlock()
	for ch := range ix.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// subscribed reports whether anyone listens for events.
func (ix *Index) subscribed() bool {
	ix.subMu.Lock()
	defer ix.subMu.Unlock()
	return len(ix.subs) > 0
}
