package server

import (
	"encoding/json"
	"sync"
	"time"
)

// Attention events tell every tab that a session needs the user: its run
// ended ("done"), failed ("failed"), or waits for an answer to an
// extension dialog ("waiting"; "resumed" once answered or timed out).
// They go to the index topic beside "running", so the sidebar of any tab
// sees them; the page decides what to show (js/attention.js).

// AttentionEvent is the index topic's "attention" event.
type AttentionEvent struct {
	Type  string `json:"type"` // "attention"
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Title string `json:"title,omitempty"`
}

// attentionOf reads a worker event: the attention kind it means, if any,
// and for a dialog its title.
func attentionOf(ev []byte) (kind, title string) {
	var e struct {
		Type     string `json:"type"`
		Method   string `json:"method"`
		Title    string `json:"title"`
		Messages []struct {
			Role         string `json:"role"`
			StopReason   string `json:"stopReason"`
			ErrorMessage string `json:"errorMessage"`
		} `json:"messages"`
	}
	if json.Unmarshal(ev, &e) != nil {
		return "", ""
	}
	switch e.Type {
	case "extension_ui_request":
		switch e.Method {
		case "select", "confirm", "input", "editor":
			return "waiting", e.Title
		}
	case "piweb_ui_answered", "piweb_ui_timeout":
		return "resumed", ""
	case "agent_end":
		for i := len(e.Messages) - 1; i >= 0; i-- {
			if m := e.Messages[i]; m.Role == "assistant" {
				if m.StopReason == "error" {
					return "failed", m.ErrorMessage
				}
				break
			}
		}
		return "done", ""
	}
	return "", ""
}

// publishAttention relays what a worker event means for attention.
func (s *Server) publishAttention(id string, raw []byte) {
	kind, title := attentionOf(raw)
	if kind == "" {
		return
	}
	if len(title) > 200 {
		title = title[:200]
	}
	if s.attention.repeated(id+" "+kind, time.Now()) {
		return // the relay of a new session's worker can hand over an event twice
	}
	ev := AttentionEvent{Type: "attention", ID: id, Kind: kind, Title: title}
	b, _ := json.Marshal(ev)
	s.publish(indexTopic, b)
	s.pushAttention(ev)
	if kind == "done" {
		s.bg.Go(func() { s.nameAfterFirstRun(id) })
	}
}

// recentAttention remembers when each (session, kind) was last announced,
// so that one event is announced (and pushed) once.
type recentAttention struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// repeated reports whether key was announced in the last 500 ms, and
// records it; entries older than that are forgotten.
func (r *recentAttention) repeated(key string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]time.Time{}
	}
	was, seen := r.last[key]
	r.last[key] = now
	for k, at := range r.last {
		if now.Sub(at) > 500*time.Millisecond {
			delete(r.last, k)
		}
	}
	return seen && now.Sub(was) < 500*time.Millisecond
}
