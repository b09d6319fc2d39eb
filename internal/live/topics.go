package live

import (
	"bytes"
	"time"

	"piweb/internal/agent"
	"piweb/internal/broker"
)

// IndexTopic is the topic of the index's changes and the workers'
// running and attention events.
const IndexTopic = "index"

// SessionTopic is the broker topic of the session file at path: its
// worker's topic (agent.Key), where the relay also publishes the file's
// growth, so that a page's "s/<id>" reads one topic numbered once.
func SessionTopic(path string) string { return agent.Key(path) }

// FilesTopic is the topic of a followed folder or file, rel, of the
// session with API id id.
func FilesTopic(id, rel string) string { return "f/" + id + "/" + rel }

// NewEvents is shared, the agent's broker, or when the agent has none to
// share (no pi) a broker with the bounds of agent.SharedBroker, with queue
// (0: 1,024) events waiting before a client is cut off (it resumes with
// Last-Event-ID).
func NewEvents(shared *broker.Broker[broker.Event], queue int) *broker.Broker[broker.Event] {
	if shared != nil {
		return shared
	}
	return broker.New[broker.Event](broker.Options{KeepEvents: 4096, KeepBytes: 32 << 20,
		QueueEvents: queue, Idle: 10 * time.Minute, Base: uint64(time.Now().UnixMicro())})
}

// turnStart returns the number just before the newest message_start of a
// run still going (no agent_end after it), or 0. A tab that opens a session
// mid-stream resumes from there to show the message being streamed and the
// tools running.
func (l *Relay) turnStart(topic string) uint64 {
	var from uint64
	l.events.Retained(topic, func(e broker.Event) bool {
		head := e.Raw[:min(len(e.Raw), 64)]
		switch {
		case bytes.Contains(head, []byte(`"type":"agent_end"`)):
			return false
		case bytes.Contains(head, []byte(`"type":"message_start"`)):
			from = e.Seq - 1
			return false
		}
		return true
	})
	return from
}
