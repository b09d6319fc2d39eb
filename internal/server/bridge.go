package server

import (
	"encoding/json"
	"sync"
	"time"
)

// bridges relays each session worker's events into the server's hub for as
// long as someone follows the session or its worker lives. It also keeps
// sessions piweb just created, whose file pi writes only with its first
// answer, so they can be followed before the index sees them.
type bridges struct {
	s  *Server
	mu sync.Mutex
	m  map[string]*bridge // by session id
	// pending are created sessions not yet in the index.
	pending map[string]Meta
}

type bridge struct {
	path   string
	cancel func()
	since  time.Time
}

func newBridges(s *Server) *bridges {
	return &bridges{s: s, m: map[string]*bridge{}, pending: map[string]Meta{}}
}

// ensure starts relaying the worker events of session m from now on.
func (b *bridges) ensure(m Meta) { b.start(m, false) }

// start relays the events of session m, from the start of the worker's
// buffer when fromStart.
func (b *bridges) start(m Meta, fromStart bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if br := b.m[m.Key]; br != nil {
		if br.path == m.Path {
			br.since = time.Now()
			return
		}
		br.cancel()
	}
	id := m.Key
	b.m[id] = &bridge{path: m.Path, since: time.Now(),
		cancel: b.s.agent.Watch(m.Path, fromStart, func(ev []byte) { b.s.onAgentEvent(id, ev) })}
}

// addPending remembers a just-created session.
func (b *bridges) addPending(m Meta) {
	b.mu.Lock()
	m.Key = m.ID // the API id of a session no copy shares yet
	b.pending[m.ID] = m
	b.mu.Unlock()
}

// lookupPending finds a created session the index does not list yet.
func (b *bridges) lookupPending(id string) (Meta, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, found := b.pending[id]
	return m, found
}

// gc stops relays of sessions with no followers and no worker, and
// forgets pending sessions the index now knows.
func (b *bridges) gc() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, br := range b.m {
		if b.s.events.Subscribers(sessionTopic(id)) == 0 && b.s.agent.State(br.path) == "" &&
			time.Since(br.since) > 10*time.Minute {
			br.cancel()
			delete(b.m, id)
		}
	}
	for id := range b.pending {
		if _, known := b.s.cat.ByKey(id); known {
			delete(b.pending, id)
		}
	}
}

// closeAll stops every relay.
func (b *bridges) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, br := range b.m {
		br.cancel()
		delete(b.m, id)
	}
}

// onAgentEvent relays a worker's event to the session's stream, and its
// running state to the index stream.
func (s *Server) onAgentEvent(id string, ev []byte) {
	s.publish(sessionTopic(id), ev)
	s.publishAttention(id, ev)
	var head struct{ Type string }
	if json.Unmarshal(ev, &head) != nil {
		return
	}
	switch head.Type {
	case "piweb_state", "piweb_exit", "agent_start", "agent_end":
		s.runGen.Add(1)
		path := ""
		if m, found := s.cat.ByKey(id); found {
			path = m.Path
		} else if m, found := s.bridges.lookupPending(id); found {
			path = m.Path
		}
		s.publishJSON(indexTopic, map[string]any{"type": "running", "id": id, "running": s.agent.Running(path)})
	}
}
