package broker

import (
	"maps"
	"sync"
	"time"
)

// Pollers look at things (a folder, a git state) for as long as some topic
// follows them and publish what changed on the topics that do: one poller
// per thing, however many topics follow it, each ending at its first tick
// without subscribers on any of its topics. Create them with NewPollers
// and Close them.
type Pollers[V any] struct {
	every  time.Duration
	bg     *Group
	events *Broker[Event]
	look   func(key string) Look[V]

	mu    sync.Mutex
	byKey map[string]map[string]V // thing -> topic -> what the topic keeps of it
	fresh map[string]bool         // topics of byKey waiting for their poller's first look after they joined
}

// Look takes one look at a thing and publishes, on the topics that follow
// it, what changed since its previous look; fresh are the topics that
// joined since then (all of them at the first look), which a look tells
// that it was taken after they subscribed.
type Look[V any] func(topics map[string]V, fresh []string)

// NewPollers returns pollers that publish on events' topics, looking every
// every; look(key) makes the looks of one thing's poller.
func NewPollers[V any](events *Broker[Event], every time.Duration, look func(key string) Look[V]) *Pollers[V] {
	return &Pollers[V]{every: every, bg: NewGroup(), events: events, look: look,
		byKey: map[string]map[string]V{}, fresh: map[string]bool{}}
}

// Every is how often a followed thing is looked at.
func (p *Pollers[V]) Every() time.Duration { return p.every }

// Close stops every poller and waits for them.
func (p *Pollers[V]) Close() { p.bg.Close() }

// Count is the number of running pollers.
func (p *Pollers[V]) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byKey)
}

// Watch has the poller of key publish its changes to topic, which keeps v
// of it, starting the poller unless it runs. Callers subscribe first, so a
// poller never drops a topic between its subscription and this call, and a
// new poller's first look is taken after they subscribed.
func (p *Pollers[V]) Watch(topic, key string, v V) {
	p.mu.Lock()
	defer p.mu.Unlock()
	topics := p.byKey[key]
	if topics == nil {
		topics = map[string]V{}
		p.byKey[key] = topics
		p.bg.Go(func() { p.poll(key) })
	}
	if _, known := topics[topic]; !known {
		p.fresh[topic] = true
	}
	topics[topic] = v
}

// followers returns the topics of key's poller that someone still
// follows, dropping the others, and those of them that have not had their
// first look (which it then counts as had); none (false) ends the poller.
func (p *Pollers[V]) followers(key string) (map[string]V, []string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	topics := p.byKey[key]
	var fresh []string
	for topic := range topics {
		if p.events.Subscribers(topic) == 0 {
			delete(topics, topic)
			delete(p.fresh, topic)
			p.events.Drop(topic)
		} else if p.fresh[topic] {
			delete(p.fresh, topic)
			fresh = append(fresh, topic)
		}
	}
	if len(topics) == 0 {
		delete(p.byKey, key)
		return nil, nil, false
	}
	return maps.Clone(topics), fresh, true
}

// poll looks at key at once and then every tick until nobody follows it.
func (p *Pollers[V]) poll(key string) {
	look := p.look(key)
	step := func() bool {
		topics, fresh, ok := p.followers(key)
		if ok {
			look(topics, fresh)
		}
		return ok
	}
	if step() {
		p.bg.Tick(p.every, step)
	}
}
