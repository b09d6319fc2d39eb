package live

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"piweb/internal/agent"
	"piweb/internal/push"
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
	// Name is what the session is called (its name, else its first
	// message), so a tab can announce a session it has not listed yet.
	Name string `json:"name,omitempty"`
}

// publishAttention relays what a worker event means for attention (its
// kind and title, agent.AttentionOf).
func (l *Relay) publishAttention(id, kind, title string) {
	if kind == agent.AttentionStarted {
		l.attention.forget(id) // a new run: its end is news however soon it comes
		return
	}
	if kind == "" {
		return
	}
	if len(title) > 200 {
		title = title[:200]
	}
	if l.attention.repeated(id+" "+kind, time.Now()) {
		return // the relay of a new session's worker can hand over an event twice
	}
	ev := AttentionEvent{Type: "attention", ID: id, Kind: kind, Title: title, Name: l.nameOf(id)}
	b, _ := json.Marshal(ev)
	l.Publish(IndexTopic, b)
	l.pushAttention(ev)
	if kind == "done" {
		l.bg.Go(func() { l.nameAfterFirstRun(id) })
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

var pushTitles = map[string]string{"done": "pi finished", "failed": "pi failed", "waiting": "pi is waiting for your answer"}

// pushAttention sends an attention event to every push subscription, in
// the background (a slow push service never holds the event relay).
func (l *Relay) pushAttention(ev AttentionEvent) {
	msg, send := l.pushMessage(ev)
	if !send {
		return
	}
	l.bg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		l.opts.Push.Send(ctx, msg)
	})
}

// pushMessage is what an attention event pushes, and whether it is
// pushed at all: not without Web Push, not for a kind the user need not
// hear ("resumed"), and not for a muted session (muted on every device).
func (l *Relay) pushMessage(ev AttentionEvent) (push.Message, bool) {
	title, wanted := pushTitles[ev.Kind]
	if l.opts.Push == nil || !wanted || (l.opts.Marks != nil && l.opts.Marks.Silenced(ev.ID)) {
		return push.Message{}, false
	}
	return push.Message{Title: title, Body: pushBody(ev.Name, ev.Title), URL: "/s/" + ev.ID, Tag: "piweb-" + ev.ID}, true
}

// nameOf is what session id is called: its listed name or first message,
// else, for a session piweb created whose file is not listed yet (its
// first answer just came), the message it was created with.
func (l *Relay) nameOf(id string) string {
	if m, found := l.cat.ByKey(id); found {
		return cmp.Or(m.Name, m.FirstMessage)
	}
	if v, created := l.unnamed.Load(id); created {
		return v.(firstRun).message
	}
	return ""
}

// pushBody is a push's text: the session's name cut to 120 characters
// (whole characters: a byte cut could split one), then the event's title.
func pushBody(name, title string) string {
	if r := []rune(name); len(r) > 120 {
		name = string(r[:120]) + "…"
	}
	if title != "" {
		name += ": " + title
	}
	return name
}

// forget drops what was announced of session id: its next events are new.
func (r *recentAttention) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.last {
		if strings.HasPrefix(k, id+" ") {
			delete(r.last, k)
		}
	}
}
