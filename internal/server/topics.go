package server

import (
	"bytes"
	"strconv"
	"time"

	"piweb/internal/agent"
	"piweb/internal/broker"
)

// Server-side topics in the broker: the index's changes, one per session
// (its file's growth and its worker's events), one per followed folder or
// file of a session's cwd.
const indexTopic = "index"

// sessionTopic is the broker topic of the session file at path: its
// worker's topic (agent.Key), where the server also publishes the file's
// growth, so that a page's "s/<id>" reads one topic numbered once.
func sessionTopic(path string) string { return agent.Key(path) }

func filesTopic(id, rel string) string { return "f/" + id + "/" + rel }

// newEvents is the server's broker when its agent has none to share (no
// pi): the bounds of agent.SharedBroker, with queue (0: 1,024) events
// waiting before a client is cut off (it resumes with Last-Event-ID).
func newEvents(a Agent, queue int) *broker.Broker[broker.Event] {
	if b := a.Events(); b != nil {
		return b
	}
	return broker.New[broker.Event](broker.Options{KeepEvents: 4096, KeepBytes: 32 << 20,
		QueueEvents: queue, Idle: 10 * time.Minute, Base: uint64(time.Now().UnixMicro())})
}

// publish hands one JSON object to the topic's subscribers and keeps it for
// replay.
func (s *Server) publish(topic string, data []byte) broker.Event {
	return s.events.Publish(topic, broker.Event{Raw: data})
}

// turnStart returns the number just before the newest message_start of a
// run still going (no agent_end after it), or 0. A tab that opens a session
// mid-stream resumes from there to show the message being streamed and the
// tools running.
func (s *Server) turnStart(topic string) uint64 {
	var from uint64
	s.events.Retained(topic, func(e broker.Event) bool {
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

// parseLastID reads a Last-Event-ID header: -1 when absent, 0 (everything
// still kept) for "0", and 1 (a number no run issues, so a reset) when
// malformed.
func parseLastID(s string) int64 {
	if s == "" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 1
	}
	return n
}

// subscribeFrom subscribes sub to topic after lastID (see parseLastID): no
// replay for -1, a reset (complete false) when lastID is unknown, from
// another run or older than what is kept.
func subscribeFrom(sub *broker.Sub[broker.Event], topic string, lastID int64) (replay []broker.Event, reset bool, err error) {
	if lastID < 0 {
		return nil, false, sub.Follow(topic)
	}
	// 0 asks for everything the topic still keeps (the broker replays from
	// the topic's first event); a number of an earlier run is a reset.
	replay, complete, err := sub.Resume(topic, uint64(lastID))
	if !complete {
		replay = nil
	}
	return replay, !complete, err
}
