// Package attention tells every tab, and the user's devices by Web Push,
// that a session needs the user: its run ended ("done"), failed
// ("failed"), or waits for an answer to an extension dialog ("waiting";
// "resumed" once answered or timed out). Its events go to the index topic
// beside "running", so the sidebar of any tab sees them; the page decides
// what to show (js/attention.js). Web Push is decided when a worker's
// note is published (a tap on the workers topic), not when the relay
// hands it over, so a note evicted while the relay was cut off is pushed
// all the same. A session piweb created is named when its first run ends
// (internal/naming).
package attention

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"piweb/internal/agent"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/live"
	"piweb/internal/naming"
	"piweb/internal/own"
	"piweb/internal/push"
	"piweb/pisession"
)

// Event is the index topic's "attention" event.
type Event struct {
	Type  string `json:"type"` // "attention"
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Title string `json:"title,omitempty"`
	// Name is what the session is called (its name, else its first
	// message), so a tab can announce a session it has not listed yet.
	Name string `json:"name,omitempty"`
}

// Options configures a Notifier. Catalog and Events are required.
type Options struct {
	// Catalog names the listed sessions.
	Catalog *catalog.Catalog
	// Events is the shared broker, whose index topic gets the events.
	Events *broker.Broker[broker.Event]
	// Push receives the events; nil pushes nothing.
	Push *push.Service
	// Marks says which sessions are muted (not pushed); nil mutes none.
	Marks *own.AttentionStore
	// Names names the sessions piweb created when their first run ends,
	// and knows their first message before they are listed; nil names
	// none.
	Names *naming.Namer
}

// Notifier announces what the workers' events mean for attention until
// Close.
type Notifier struct {
	opts   Options
	recent recentAttention
	bg     sync.WaitGroup
	untap  func()
	mu     sync.Mutex
	closed bool // no more background work: Close waits for bg
}

// New returns a Notifier, which pushes the workers' notes on Events as
// they are published.
func New(o Options) *Notifier {
	n := &Notifier{opts: o, untap: func() {}}
	if o.Events != nil {
		n.untap = o.Events.Tap(agent.WorkersTopic, n.pushNote)
	}
	return n
}

// Close stops the pushes and waits for the pushes and namings under way.
func (n *Notifier) Close() {
	n.untap()
	n.mu.Lock()
	n.closed = true // a publish that took the tap before untap starts nothing now
	n.mu.Unlock()
	n.bg.Wait()
}

// background runs f in the background unless the Notifier is closed.
func (n *Notifier) background(f func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed {
		n.bg.Go(f)
	}
}

// Note announces what a worker's event means for the attention of
// session id: its kind and title (agent.AttentionOf).
func (n *Notifier) Note(id, kind, title string) {
	if kind == agent.AttentionStarted {
		n.recent.forget(id) // a new run: its end is news however soon it comes
		return
	}
	if kind == "" {
		return
	}
	if len(title) > 200 {
		title = title[:200]
	}
	if n.recent.repeated(id+" "+kind, time.Now()) {
		return // the relay of a new session's worker can hand over an event twice
	}
	ev := Event{Type: "attention", ID: id, Kind: kind, Title: title, Name: n.nameOf(id)}
	b, _ := json.Marshal(ev)
	n.opts.Events.Publish(live.IndexTopic, broker.Event{Raw: b})
	if kind == "done" && n.opts.Names != nil {
		n.background(func() { n.opts.Names.FirstRunEnded(id) })
	}
}

// recentAttention remembers when each (session, kind) was last announced,
// so that one event is announced once (pushes are decided apart: pushNote).
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

var pushTitles = map[string]string{"done": "pi finished", "failed": "pi failed", "waiting": "pi is waiting for your answer"}

// pushNote pushes what a worker's note (a workers topic event) means for
// the attention of its session, as the note is published.
func (n *Notifier) pushNote(e broker.Event) {
	note, ok := e.Value.(agent.WorkerNote)
	if _, wanted := pushTitles[note.Attention]; !ok || !wanted {
		return
	}
	id := n.keyOf(note.Topic)
	if id == "" {
		return
	}
	n.push(Event{Type: "attention", ID: id, Kind: note.Attention, Title: note.Title, Name: n.nameOf(id)})
}

// keyOf is the API id of the session whose file's topic is topic: the
// listed one's, else, for a session piweb created that the index does not
// list yet, its header id, which its file's name holds.
func (n *Notifier) keyOf(topic string) string {
	if m, found := n.opts.Catalog.ByPath(topic); found {
		return m.Key
	}
	return pisession.IDFromFileName(topic)
}

// push sends an event to every push subscription, in the background (a
// slow push service never holds the worker that published the note).
func (n *Notifier) push(ev Event) {
	msg, send := n.pushMessage(ev)
	if !send {
		return
	}
	n.background(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		n.opts.Push.Send(ctx, msg)
	})
}

// pushMessage is what an event pushes, and whether it is pushed at all:
// not without Web Push, not for a kind the user need not hear
// ("resumed"), and not for a muted session (muted on every device).
func (n *Notifier) pushMessage(ev Event) (push.Message, bool) {
	title, wanted := pushTitles[ev.Kind]
	if n.opts.Push == nil || !wanted || (n.opts.Marks != nil && n.opts.Marks.Silenced(ev.ID)) {
		return push.Message{}, false
	}
	return push.Message{Title: title, Body: pushBody(pushName(ev), ev.Title), URL: "/s/" + ev.ID, Tag: "piweb-" + ev.ID}, true
}

// nameOf is what session id is called: its listed name or first message,
// else, for a session piweb created whose file is not listed yet or
// listed before its first message (its first answer just came), the
// message it was created with.
func (n *Notifier) nameOf(id string) string {
	m, found := n.opts.Catalog.ByKey(id)
	if found && (m.Name != "" || m.FirstMessage != pisession.NoMessages) {
		return cmp.Or(m.Name, m.FirstMessage)
	}
	if n.opts.Names != nil {
		if msg, _ := n.opts.Names.Message(id); msg != "" {
			return msg
		}
	}
	return m.FirstMessage // "" when not listed
}

// pushName is what a push calls the session of ev: its name (nameOf),
// else, for one not listed and not named (no naming service) or listed
// before its first message, "session" and the start of its id, as a body
// ": title" told nothing.
func pushName(ev Event) string {
	if ev.Name != "" && ev.Name != pisession.NoMessages {
		return ev.Name
	}
	id := ev.ID
	if len(id) > 8 {
		id = id[:8] // a UUID's first group
	}
	return "session " + id
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
