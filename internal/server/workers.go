package server

import (
	"sync"

	"piweb/internal/agent"
)

// pending keeps sessions piweb just created, whose file pi writes only
// with its first answer, so they can be followed before the index lists
// them.
type pending struct {
	mu sync.Mutex
	m  map[string]Meta // by session id
}

// add remembers a just-created session.
func (p *pending) add(m Meta) {
	p.mu.Lock()
	m.Key = m.ID // the API id of a session no copy shares yet
	p.m[m.ID] = m
	p.mu.Unlock()
}

// lookup finds a created session the index does not list yet.
func (p *pending) lookup(id string) (Meta, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, found := p.m[id]
	return m, found
}

// byPath finds a created session by its file.
func (p *pending) byPath(path string) (Meta, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.m {
		if m.Path == path {
			return m, true
		}
	}
	return Meta{}, false
}

// gc forgets pending sessions the index now knows.
func (p *pending) gc(s *Server) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id := range p.m {
		if _, known := s.cat.ByKey(id); known {
			delete(p.m, id)
		}
	}
}

// followWorkers turns the workers' state changes (agent.WorkersTopic of
// the one broker) into the index topic's running events, until Close.
func (s *Server) followWorkers() {
	sub := s.events.NewSub()
	defer sub.Close()
	if sub.Follow(agent.WorkersTopic) != nil {
		return
	}
	for {
		select {
		case <-s.shutdown:
			return
		case ev, open := <-sub.C:
			if !open {
				return
			}
			if n, ok := ev.Value.(agent.WorkerNote); ok {
				s.workerEvent(n)
			}
		}
	}
}

// workerEvent relays what a worker's event means to every tab: whether
// the worker runs now, and what needs the user's attention.
func (s *Server) workerEvent(n agent.WorkerNote) {
	switch n.Event.Type {
	case agent.EvState, agent.EvExit, agent.EvAgentStart, agent.EvAgentEnd:
		s.workerChanged(n.Topic)
	}
	if m, found := s.sessionOfTopic(n.Topic); found {
		s.publishAttention(m.Key, n.Event.Raw)
	}
}

// workerChanged tells the index topic whether the worker of the session
// file whose topic is topic runs now.
func (s *Server) workerChanged(topic string) {
	s.runGen.Add(1)
	if m, found := s.sessionOfTopic(topic); found {
		s.publishJSON(indexTopic, runningEvent{Type: "running", ID: m.Key, Running: s.agent.Running(m.Path)})
	}
}

// sessionOfTopic finds the session whose file's topic is topic (its
// path, see sessionTopic), listed or just created.
func (s *Server) sessionOfTopic(topic string) (Meta, bool) {
	if m, found := s.cat.ByPath(topic); found {
		return m, true
	}
	return s.pending.byPath(topic)
}
