package live

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"maps"
	"path"
	"sync"
	"time"

	"piweb/internal/cwdfs"
)

// WatchFiles has the poller of real, a folder or file of a session's cwd,
// publish its changes to topic (as rel, its path relative to the cwd),
// starting it unless it runs. Callers subscribe first, so a poller never
// drops a topic between its subscription and this call, and a new
// poller's first snapshot is taken after they subscribed.
func (l *Relay) WatchFiles(topic, real, rel string) { l.pollers.ensure(l, topic, real, rel) }

// WatchGit has topic hear git_changed whenever the git state of cwd
// changes, starting its poller unless it runs; the poller ends at its
// first tick without subscribers.
func (l *Relay) WatchGit(topic, cwd string) {
	l.pollers.start(l, topic, func() { l.pollGit(topic, cwd) })
}

// Pollers is the number of running folder and file pollers.
func (l *Relay) Pollers() int { return l.pollers.count() }

// pollers runs one poller per followed folder or file, on its real path,
// however many clients and topics follow it (the sessions of one cwd, or
// copies of a session, follow the same folder under topics of their own);
// a poller ends at its first tick without subscribers on any of its topics.
type pollers struct {
	mu      sync.Mutex
	byPath  map[string]map[string]string // real path -> topic -> its path relative to the session's cwd
	fresh   map[string]bool              // topics of byPath waiting for their poller's first look after they joined
	running map[string]bool              // topics of pollers of one topic each (start)
}

// start runs poll for the topic unless a poller of it runs; poll ends
// when idle says so.
func (p *pollers) start(l *Relay, topic string, poll func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running[topic] {
		return
	}
	if p.running == nil {
		p.running = map[string]bool{}
	}
	p.running[topic] = true
	l.bg.Go(poll)
}

// idle ends the topic's poller (one started by start) when nobody follows
// it any more.
func (p *pollers) idle(l *Relay, topic string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l.events.Subscribers(topic) > 0 {
		return false
	}
	delete(p.running, topic)
	l.events.Drop(topic)
	return true
}

// ensure has the poller of real publish to topic (as rel), starting it
// unless it runs. Callers subscribe first, so a poller never drops a topic
// between its subscription and this call, and a new poller's first
// snapshot is taken after they subscribed.
func (p *pollers) ensure(l *Relay, topic, real, rel string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byPath == nil {
		p.byPath = map[string]map[string]string{}
	}
	topics := p.byPath[real]
	if topics == nil {
		topics = map[string]string{}
		p.byPath[real] = topics
		l.bg.Go(func() { l.pollFiles(real) })
	}
	if _, known := topics[topic]; !known {
		if p.fresh == nil {
			p.fresh = map[string]bool{}
		}
		p.fresh[topic] = true
	}
	topics[topic] = rel
}

// followers returns the topics of real's poller that someone still
// follows, dropping the others, and those of them that have not had their
// first look (which it then counts as had); none (false) ends the poller.
func (p *pollers) followers(l *Relay, real string) (map[string]string, []string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	topics := p.byPath[real]
	var fresh []string
	for topic := range topics {
		if l.events.Subscribers(topic) == 0 {
			delete(topics, topic)
			delete(p.fresh, topic)
			l.events.Drop(topic)
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

// count is the number of running pollers.
func (p *pollers) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byPath)
}

// fileChanged is the event of a files topic.
type fileChanged struct {
	Type string `json:"type"`
	Path string `json:"path"`
}

// pollFiles looks for changes in the folder or file real until nobody
// follows it, and publishes each to every topic that does. Its first look
// is published too, as a change of real itself: a change between a page's
// listing and that look would otherwise be missed.
func (l *Relay) pollFiles(real string) {
	topics, fresh, ok := l.pollers.followers(l, real)
	if !ok {
		return
	}
	snap := cwdfs.Snapshot(real)
	l.firstLook(topics, fresh)
	t := time.NewTicker(l.opts.FilesPoll)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		topics, fresh, ok := l.pollers.followers(l, real)
		if !ok {
			return
		}
		now := cwdfs.Snapshot(real)
		for _, name := range cwdfs.Changes(snap, now) {
			for topic, rel := range topics {
				l.PublishJSON(topic, fileChanged{Type: "file_changed", Path: path.Join(rel, name)})
			}
		}
		l.firstLook(topics, fresh)
		snap = now
	}
}

// firstLook publishes, to each topic new since the last look, a change of
// the followed path itself: the look just taken came after the topic's
// subscription, so a page that lists again on it misses no change made
// between its listing and its subscription.
func (l *Relay) firstLook(topics map[string]string, fresh []string) {
	for _, topic := range fresh {
		l.PublishJSON(topic, fileChanged{Type: "file_changed", Path: topics[topic]})
	}
}

// gitChanged is the git topic's event.
var gitChanged = struct {
	Type string `json:"type"`
}{"git_changed"}

// pollGit publishes git_changed on the topic whenever the session's git
// state differs from the last look, until nobody follows it. It also
// publishes one after its first look: a change between a page's
// subscription and that look would otherwise be missed.
func (l *Relay) pollGit(topic, cwd string) {
	last := l.gitDigest(cwd)
	l.PublishJSON(topic, gitChanged)
	t := time.NewTicker(l.opts.GitPoll)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		if l.pollers.idle(l, topic) {
			return
		}
		if now := l.gitDigest(cwd); now != last {
			last = now
			l.PublishJSON(topic, gitChanged)
		}
	}
}

func (l *Relay) gitDigest(cwd string) [32]byte {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, _ := l.opts.Git.View(ctx, cwd)
	b, _ := json.Marshal(a)
	return sha256.Sum256(b)
}
