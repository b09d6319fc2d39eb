package gitx

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"piweb/internal/broker"
	"piweb/internal/opt"
)

// Pollers publish git_changed on a session's git topic whenever the git
// state of its cwd changes: one poller per cwd, however many sessions'
// topics follow it, each ending at its first tick without subscribers.
// Create them with NewPollers and Close them.
type Pollers struct {
	*broker.Pollers[struct{}]
}

// NewPollers returns pollers that run g and publish on events' topics,
// looking every every (0: 2 s).
func NewPollers(g *Git, events *broker.Broker[broker.Event], every time.Duration) *Pollers {
	opt.Positive(&every, 2*time.Second)
	return &Pollers{broker.NewPollers(events, every, func(cwd string) broker.Look[struct{}] {
		return looker(g, events, cwd)
	})}
}

// Watch has topic hear git_changed whenever the git state of cwd
// changes, starting its poller unless it runs. Callers subscribe first.
func (p *Pollers) Watch(topic, cwd string) { p.Pollers.Watch(topic, cwd, struct{}{}) }

// gitChanged is the git topic's event.
var gitChanged = broker.Event{Raw: []byte(`{"type":"git_changed"}`)}

// looker publishes git_changed on the topics that follow cwd whenever its
// git state differs from the last look, and on each topic after its first
// look: a change between a page's subscription and that look would
// otherwise be missed.
func looker(g *Git, events *broker.Broker[broker.Event], cwd string) broker.Look[struct{}] {
	var last [32]byte
	return func(topics map[string]struct{}, fresh []string) {
		now := digest(g, cwd)
		if now != last { // every topic hears it, not only the fresh
			fresh = slices.Collect(maps.Keys(topics))
		}
		for _, topic := range fresh {
			events.Publish(topic, gitChanged)
		}
		last = now
	}
}

// digest sums what the Changes panel shows of cwd.
func digest(g *Git, cwd string) [32]byte {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, _ := g.View(ctx, cwd)
	b, _ := json.Marshal(a)
	return sha256.Sum256(b)
}
