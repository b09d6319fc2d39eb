package agent

import (
	"cmp"
	"encoding/json"
	"time"

	"piweb/internal/broker"
)

// Hub is one session's topic in the agent's broker: the worker's events,
// numbered (Seq, never reused for the life of the topic, across pi
// restarts) and kept for replay bounded in events and bytes, so that a
// reconnecting subscriber resumes after the last Seq it saw. Publish never
// blocks: a subscriber whose queue is full is cut off and marked lagging;
// it resubscribes from its last Seq, which costs nothing if the topic
// still keeps what it missed. A Hub is a small handle: the topic lives in
// the broker (collected there when idle), not in the Hub.
type Hub struct {
	b     *broker.Broker[Event]
	topic string
}

// Replay and subscriber defaults: message_update lines can be tens of KB
// each, so a session's replay is bounded in bytes as well as in events.
const (
	DefaultRingEvents = 4096
	DefaultRingBytes  = 8 << 20
	DefaultSubBuffer  = 1024
)

// WorkersTopic is the topic on which every Hub also announces the events
// that concern the session beyond its own page: its worker's state
// changes (piweb_state, piweb_exit, agent_start, agent_end) and dialogs
// (extension_ui_request, piweb_ui_answered, piweb_ui_timeout), as events of
// type "worker_changed" whose Value is a WorkerNote and whose Raw is the
// note encoded. The server follows it for the listing's running flags and
// the attention events.
const WorkersTopic = "workers"

// WorkerNote is the Value of a WorkersTopic event: a small projection of
// the event published on the session's topic, never the event itself (an
// agent_end carries the whole run's messages, which the topic would keep
// for replay).
type WorkerNote struct {
	Topic string `json:"topic"` // the session's topic (its Key)
	Type  string `json:"event"` // the event's type
	// Attention is what the event means for the user's attention
	// (AttentionOf), and Title a dialog's title or a failed run's error,
	// at most 200 bytes.
	Attention string `json:"attention,omitempty"`
	Title     string `json:"title,omitempty"`
}

// SharedBroker returns the broker for every live event of piweb: agent
// events and the server's own topics; it is the one constructor of that
// broker, whether the agent or (without pi) the App makes it. Replay is
// bounded per topic (4,096 events, 32 MB), a subscriber more than queue
// events behind (0: DefaultSubBuffer) is cut off and resumes from its
// last number, idle topics are collected after 10 minutes, and numbers
// continue from the clock, so that a number from an earlier run is
// recognisably older than this run's. now is the clock events are
// stamped with (nil: time.Now; a test moves it instead of sleeping).
func SharedBroker(queue int, now func() time.Time) *broker.Broker[Event] {
	return broker.New[Event](broker.Options{KeepEvents: DefaultRingEvents, KeepBytes: 32 << 20,
		QueueEvents: cmp.Or(queue, DefaultSubBuffer), Idle: 10 * time.Minute, Base: uint64(time.Now().UnixMicro()),
		Now: now})
}

// NewBroker returns a broker for agent events with the default bounds.
func NewBroker() *broker.Broker[Event] { return newBroker(broker.Options{}) }

func newBroker(o broker.Options) *broker.Broker[Event] {
	if o.KeepEvents == 0 {
		o.KeepEvents = DefaultRingEvents
	}
	if o.KeepBytes == 0 {
		o.KeepBytes = DefaultRingBytes
	}
	if o.QueueEvents == 0 {
		o.QueueEvents = DefaultSubBuffer
	}
	return broker.New[Event](o)
}

// NewHub returns a Hub on a broker of its own with the default bounds.
func NewHub() *Hub { return &Hub{b: NewBroker(), topic: "events"} }

// hubOn returns the Hub of topic in b.
func hubOn(b *broker.Broker[Event], topic string) *Hub { return &Hub{b: b, topic: topic} }

// Subscription receives events on C, in Seq order without gaps. C is
// closed when the subscriber falls behind (Lagged reports true: resubscribe
// from the last Seq received), on Close, or when the Hub closes.
type Subscription = broker.Sub[Event]

// Publish numbers e, keeps it for replay and offers it to every
// subscriber; a change of the worker's state is also announced on
// WorkersTopic.
func (h *Hub) Publish(e Event) Event {
	e = h.b.Publish(h.topic, e)
	switch e.Type {
	case EvState, EvExit, EvAgentStart, EvAgentEnd, EvExtensionUIRequest, EvUIAnswered, EvExtensionUITimeout:
		n := noteOf(h.topic, e)
		raw, _ := json.Marshal(struct {
			Type string `json:"type"`
			WorkerNote
		}{"worker_changed", n})
		h.b.Publish(WorkersTopic, Event{Type: "worker_changed", Raw: raw, Value: n})
	}
	return e
}

// Subscribe returns the events after Seq `after` (the last one the caller
// has) that the Hub still keeps, and a subscription for everything later,
// with no gap and no duplicate between the two. complete is false when
// some events after `after` were already evicted: the caller must resync
// from a fresh snapshot (get_messages or the session file). A new client
// takes Last(), loads its snapshot, then subscribes after that Seq.
func (h *Hub) Subscribe(after uint64) (replay []Event, sub *Subscription, complete bool) {
	sub = h.b.NewSub()
	replay, complete, err := sub.Resume(h.topic, after)
	if err != nil { // the Hub was closed: an ended subscription
		sub.Close()
		return nil, sub, true
	}
	return replay, sub, complete
}

// Last is the Seq of the newest event (0 before any on a Hub of its own).
func (h *Hub) Last() uint64 { return h.b.Last(h.topic) }

// Subscribers counts live subscriptions.
func (h *Hub) Subscribers() int { return h.b.Subscribers(h.topic) }

// Close ends every subscription; later Publish calls are ignored.
func (h *Hub) Close() { h.b.CloseTopic(h.topic) }
