package live

import (
	"sync"

	"piweb/internal/agent"
	"piweb/internal/catalog"
)

// pending keeps sessions piweb just created, whose file pi writes only
// with its first answer, so they can be followed before the index lists
// them.
type pending struct {
	mu sync.Mutex
	m  map[string]catalog.Meta // by session id
}

// add remembers a just-created session.
func (p *pending) add(m catalog.Meta) {
	p.mu.Lock()
	m.Key = m.ID // the API id of a session no copy shares yet
	p.m[m.ID] = m
	p.mu.Unlock()
}

// lookup finds a created session the index does not list yet.
func (p *pending) lookup(id string) (catalog.Meta, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, found := p.m[id]
	return m, found
}

// byPath finds a created session by its file.
func (p *pending) byPath(path string) (catalog.Meta, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.m {
		if m.Path == path {
			return m, true
		}
	}
	return catalog.Meta{}, false
}

// gc forgets pending sessions the index now knows.
func (p *pending) gc(l *Relay) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.m {
		if _, known := l.cat.ByKey(id); known {
			delete(p.m, id)
		}
	}
}

// workerEvent relays what a worker's event means to every tab: whether
// the worker runs now, and what needs the user's attention.
func (l *Relay) workerEvent(n agent.WorkerNote) {
	switch n.Type {
	case agent.EvState, agent.EvExit, agent.EvAgentStart, agent.EvAgentEnd:
		l.WorkerChanged(n.Topic)
	}
	if m, found := l.sessionOfTopic(n.Topic); found && l.opts.Attention != nil {
		l.opts.Attention(m.Key, n.Attention, n.Title)
	}
}

// WorkerChanged tells the index topic whether the worker of the session
// file whose topic is topic runs now.
func (l *Relay) WorkerChanged(topic string) {
	l.runGen.Add(1)
	if m, found := l.sessionOfTopic(topic); found {
		l.PublishJSON(IndexTopic, runningEvent{Type: "running", ID: m.Key, Running: l.agent.Running(m.Path)})
	}
}

// sessionOfTopic finds the session whose file's topic is topic (its
// path, see sessionTopic), listed or just created.
func (l *Relay) sessionOfTopic(topic string) (catalog.Meta, bool) {
	if m, found := l.cat.ByPath(topic); found {
		return m, true
	}
	return l.pending.byPath(topic)
}
