package server

import (
	"encoding/json"
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
	ev := AttentionEvent{Type: "attention", ID: id, Kind: kind, Title: title}
	b, _ := json.Marshal(ev)
	s.publish(indexTopic, b)
	s.pushAttention(ev)
	if kind == "done" {
		s.bg.Go(func() { s.nameAfterFirstRun(id) })
	}
}
