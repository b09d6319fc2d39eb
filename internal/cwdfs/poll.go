package cwdfs

import (
	"encoding/json"
	"maps"
	"path"
	"sync"
	"time"

	"piweb/internal/broker"
	"piweb/internal/opt"
)

// Pollers publish the changes of the folders and files pages follow in a
// session's cwd: one poller per followed real path, however many clients
// and topics follow it (the sessions of one cwd, or copies of a session,
// follow the same folder under topics of their own). A poller ends at its
// first tick without subscribers on any of its topics. Create them with
// NewPollers and Close them.
type Pollers struct {
	every  time.Duration
	bg     *broker.Group
	events *broker.Broker[broker.Event]

	mu     sync.Mutex
	byPath map[string]map[string]string // real path -> topic -> its path relative to the session's cwd
	fresh  map[string]bool              // topics of byPath waiting for their poller's first look after they joined
}

// NewPollers returns pollers that publish file_changed events on events'
// topics, looking every every (0: 1 s).
func NewPollers(events *broker.Broker[broker.Event], every time.Duration) *Pollers {
	opt.Positive(&every, time.Second)
	return &Pollers{every: every, bg: broker.NewGroup(), events: events, byPath: map[string]map[string]string{},
		fresh: map[string]bool{}}
}

// Every is how often a followed folder or file is looked at.
func (p *Pollers) Every() time.Duration { return p.every }

// Close stops every poller and waits for them.
func (p *Pollers) Close() { p.bg.Close() }

// Watch has the poller of real, a folder or file of a session's cwd,
// publish its changes to topic (as rel, its path relative to the cwd),
// starting it unless it runs. Callers subscribe first, so a poller never
// drops a topic between its subscription and this call, and a new
// poller's first snapshot is taken after they subscribed.
func (p *Pollers) Watch(topic, real, rel string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	topics := p.byPath[real]
	if topics == nil {
		topics = map[string]string{}
		p.byPath[real] = topics
		p.bg.Go(func() { p.poll(real) })
	}
	if _, known := topics[topic]; !known {
		p.fresh[topic] = true
	}
	topics[topic] = rel
}

// Count is the number of running pollers.
func (p *Pollers) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byPath)
}

// followers returns the topics of real's poller that someone still
// follows, dropping the others, and those of them that have not had their
// first look (which it then counts as had); none (false) ends the poller.
func (p *Pollers) followers(real string) (map[string]string, []string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	topics := p.byPath[real]
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
		delete(p.byPath, real)
		return nil, nil, false
	}
	return maps.Clone(topics), fresh, true
}

// fileChanged is the event of a files topic.
type fileChanged struct {
	Type string `json:"type"`
	Path string `json:"path"`
}

// publish sends file_changed for name to topic.
func (p *Pollers) publish(topic, name string) {
	b, _ := json.Marshal(fileChanged{Type: "file_changed", Path: name})
	p.events.Publish(topic, broker.Event{Raw: b})
}

// poll looks for changes in the folder or file real until nobody follows
// it, and publishes each to every topic that does. Its first look is
// published too, as a change of real itself: a change between a page's
// listing and that look would otherwise be missed.
func (p *Pollers) poll(real string) {
	topics, fresh, ok := p.followers(real)
	if !ok {
		return
	}
	snap := Snapshot(real)
	p.firstLook(topics, fresh)
	p.bg.Tick(p.every, func() bool {
		topics, fresh, ok := p.followers(real)
		if !ok {
			return false
		}
		now := Snapshot(real)
		for _, name := range Changes(snap, now) {
			for topic, rel := range topics {
				p.publish(topic, path.Join(rel, name))
			}
		}
		p.firstLook(topics, fresh)
		snap = now
		return true
	})
}

// firstLook publishes, to each topic new since the last look, a change of
// the followed path itself: the look just taken came after the topic's
// subscription, so a page that lists again on it misses no change made
// between its listing and its subscription.
func (p *Pollers) firstLook(topics map[string]string, fresh []string) {
	for _, topic := range fresh {
		p.publish(topic, topics[topic])
	}
}
