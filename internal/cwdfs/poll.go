package cwdfs

import (
	"encoding/json"
	"path"
	"time"

	"piweb/internal/broker"
	"piweb/internal/opt"
)

// Pollers publish the changes of the folders and files pages follow in a
// session's cwd: one poller per followed real path, however many clients
// and topics follow it (the sessions of one cwd, or copies of a session,
// follow the same folder under topics of their own). Watch(topic, real,
// rel) has the poller of real, a folder or file of a session's cwd,
// publish its changes to topic as paths below rel, its path relative to
// the cwd. Create them with NewPollers and Close them.
type Pollers struct {
	*broker.Pollers[string]
}

// NewPollers returns pollers that publish file_changed events on events'
// topics, looking every every (0: 1 s).
func NewPollers(events *broker.Broker[broker.Event], every time.Duration) *Pollers {
	opt.Positive(&every, time.Second)
	return &Pollers{broker.NewPollers(events, every, func(real string) broker.Look[string] {
		return looker(events, real)
	})}
}

// fileChanged is the event of a files topic.
type fileChanged struct {
	Type string `json:"type"`
	Path string `json:"path"`
}

// publish sends file_changed for name to topic.
func publish(events *broker.Broker[broker.Event], topic, name string) {
	b, _ := json.Marshal(fileChanged{Type: "file_changed", Path: name})
	events.Publish(topic, broker.Event{Raw: b})
}

// looker looks for changes in the folder or file real and publishes each
// to every topic that follows it. Each topic's first look is published
// too, as a change of real itself: the look came after the topic's
// subscription, so a page that lists again on it misses no change made
// between its listing and its subscription.
func looker(events *broker.Broker[broker.Event], real string) broker.Look[string] {
	var snap map[string]Stamp
	return func(topics map[string]string, fresh []string) {
		now := Snapshot(real)
		if snap != nil {
			for _, name := range Changes(snap, now) {
				for topic, rel := range topics {
					publish(events, topic, path.Join(rel, name))
				}
			}
		}
		for _, topic := range fresh {
			publish(events, topic, topics[topic])
		}
		snap = now
	}
}
