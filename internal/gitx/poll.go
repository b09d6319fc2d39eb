package gitx

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"piweb/internal/broker"
	"piweb/internal/opt"
)

// Pollers publish git_changed on a session's git topic whenever the git
// state of its cwd changes, one poller per topic, each ending at its
// first tick without subscribers. Create them with NewPollers and Close
// them.
type Pollers struct {
	every  time.Duration
	bg     *broker.Group
	git    *Git
	events *broker.Broker[broker.Event]

	mu      sync.Mutex
	running map[string]bool // topics with a poller
}

// NewPollers returns pollers that run g and publish on events' topics,
// looking every every (0: 2 s).
func NewPollers(g *Git, events *broker.Broker[broker.Event], every time.Duration) *Pollers {
	opt.Positive(&every, 2*time.Second)
	return &Pollers{every: every, bg: broker.NewGroup(), git: g, events: events, running: map[string]bool{}}
}

// Every is how often a followed session's git state is looked at.
func (p *Pollers) Every() time.Duration { return p.every }

// Close stops every poller and waits for them.
func (p *Pollers) Close() { p.bg.Close() }

// Watch has topic hear git_changed whenever the git state of cwd
// changes, starting its poller unless it runs. Callers subscribe first.
func (p *Pollers) Watch(topic, cwd string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running[topic] {
		return
	}
	p.running[topic] = true
	p.bg.Go(func() { p.poll(topic, cwd) })
}

// idle ends the topic's poller when nobody follows it any more.
func (p *Pollers) idle(topic string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.events.Subscribers(topic) > 0 {
		return false
	}
	delete(p.running, topic)
	p.events.Drop(topic)
	return true
}

// gitChanged is the git topic's event.
var gitChanged = broker.Event{Raw: []byte(`{"type":"git_changed"}`)}

// poll publishes git_changed on the topic whenever the session's git
// state differs from the last look, until nobody follows it. It also
// publishes one after its first look: a change between a page's
// subscription and that look would otherwise be missed.
func (p *Pollers) poll(topic, cwd string) {
	last := p.digest(cwd)
	p.events.Publish(topic, gitChanged)
	p.bg.Tick(p.every, func() bool {
		if p.idle(topic) {
			return false
		}
		if now := p.digest(cwd); now != last {
			last = now
			p.events.Publish(topic, gitChanged)
		}
		return true
	})
}

// digest sums what the Changes panel shows of cwd.
func (p *Pollers) digest(cwd string) [32]byte {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, _ := p.git.View(ctx, cwd)
	b, _ := json.Marshal(a)
	return sha256.Sum256(b)
}
