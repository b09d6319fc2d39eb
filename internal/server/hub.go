package server

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// hub fans events out to SSE clients by topic (a session id, or the index)
// and keeps a replay buffer per topic so a client that reconnects with
// Last-Event-ID misses nothing. Publishing never blocks: a client whose
// queue is full is cut off and resumes from the buffer when it reconnects,
// so one slow client cannot stall the agent or the other clients.
type hub struct {
	base    int64 // first id of this server run
	next    atomic.Int64
	maxKeep int // events kept per topic
	maxSize int // bytes kept per topic
	queue   int // per-client queue length

	mu     sync.Mutex
	topics map[string]*topic
}

type event struct {
	id   int64
	at   int64  // when the hub received it, Unix ms: a replayed event is timed by it
	data []byte // one JSON object
}

type topic struct {
	events  []event // ring, oldest first
	size    int
	evicted int64 // highest id dropped from the buffer
	born    int64 // last id of the run when the topic was created
	subs    map[*subscriber]struct{}
	last    time.Time // last publish or unsubscribe
}

// subscriber is one SSE connection. ch is closed when the hub cuts the
// client off.
type subscriber struct {
	ch     chan event
	closed bool
}

func newHub() *hub {
	h := &hub{maxKeep: 4096, maxSize: 32 << 20, queue: 1024, topics: map[string]*topic{}}
	// Ids continue from the clock so that an id from an earlier run is
	// recognisably older than this run's base.
	h.base = time.Now().UnixMicro()
	h.next.Store(h.base)
	return h
}

func (h *hub) topic(name string) *topic {
	t := h.topics[name]
	if t == nil {
		t = &topic{subs: map[*subscriber]struct{}{}, last: time.Now(), born: h.next.Load()}
		h.topics[name] = t
	}
	return t
}

// publish appends data to the topic and hands it to every subscriber.
func (h *hub) publish(name string, data []byte) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topic(name)
	ev := event{id: h.next.Add(1), at: time.Now().UnixMilli(), data: data}
	t.events = append(t.events, ev)
	t.size += len(data)
	for len(t.events) > h.maxKeep || (t.size > h.maxSize && len(t.events) > 1) {
		t.evicted = t.events[0].id
		t.size -= len(t.events[0].data)
		t.events[0] = event{}
		t.events = t.events[1:]
	}
	t.last = time.Now()
	for sub := range t.subs {
		select {
		case sub.ch <- ev:
		default:
			h.cutLocked(t, sub)
		}
	}
	return ev.id
}

func (h *hub) cutLocked(t *topic, sub *subscriber) {
	delete(t.subs, sub)
	if !sub.closed {
		sub.closed = true
		close(sub.ch)
	}
}

// subscribe registers a client on the topic. It returns the events after
// lastID still in the buffer, or reset when some were lost (or lastID is
// from another run); lastID < 0 means a fresh client that wants no replay.
func (h *hub) subscribe(name string, lastID int64) (sub *subscriber, replay []event, reset bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topic(name)
	sub = &subscriber{ch: make(chan event, h.queue)}
	t.subs[sub] = struct{}{}
	if lastID < 0 {
		return sub, nil, false
	}
	// Ids before the topic existed (it was dropped when idle, or the id is
	// from another run) or already evicted may hide lost events.
	if lastID < h.base || lastID > h.next.Load() || lastID < t.evicted || lastID < t.born {
		return sub, nil, true
	}
	for _, ev := range t.events {
		if ev.id > lastID {
			replay = append(replay, ev)
		}
	}
	return sub, replay, false
}

// turnStart returns the id just before the newest message_start of a run
// still going (no agent_end after it), or 0. A tab that opens a session
// mid-stream resumes from there to show the message being streamed and the
// tools running.
func (h *hub) turnStart(name string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[name]
	if t == nil {
		return 0
	}
	for i := len(t.events) - 1; i >= 0; i-- {
		head := t.events[i].data[:min(len(t.events[i].data), 64)]
		switch {
		case bytes.Contains(head, []byte(`"type":"agent_end"`)):
			return 0
		case bytes.Contains(head, []byte(`"type":"message_start"`)):
			return t.events[i].id - 1
		}
	}
	return 0
}

// unsubscribe removes the client.
func (h *hub) unsubscribe(name string, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[name]; t != nil {
		h.cutLocked(t, sub)
		t.last = time.Now()
	}
}

// subscribers counts a topic's clients.
func (h *hub) subscribers(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[name]; t != nil {
		return len(t.subs)
	}
	return 0
}

// gc drops topics without clients that were quiet for longer than idle,
// freeing their replay buffers.
func (h *hub) gc(idle time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name, t := range h.topics {
		if len(t.subs) == 0 && time.Since(t.last) > idle {
			delete(h.topics, name)
		}
	}
}

// parseLastID reads a Last-Event-ID header; -1 when absent or malformed.
func parseLastID(s string) int64 {
	if s == "" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0 // unknown: forces a reset
	}
	return n
}

// drop forgets a topic that has no clients (a per-connection topic).
func (h *hub) drop(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[name]; t != nil && len(t.subs) == 0 {
		delete(h.topics, name)
	}
}
