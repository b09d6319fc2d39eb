package live

import (
	"bytes"
	"path"
	"strings"

	"piweb/internal/agent"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
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

// Topic is a topic a page may subscribe to: Name is the broker topic it
// reads (a session's is its file's, see SessionTopic), Hello makes its
// first event once subscribed; Timed topics carry replay times.
type Topic struct {
	Name  string
	Hello func() []byte
	Timed bool
}

// The topic names a page may not subscribe to.
var (
	ErrUnknownTopic = errs.New(errs.Invalid, "unknown topic", "unknown topic")
	ErrUncleanPath  = errs.New(errs.Invalid, "path must be clean and relative", "path must be clean and relative")
)

// ResolveTopic checks a topic name a page sent ("index", "s/<id>",
// "f/<id>/<path>", the path clean and relative to the session's cwd, or
// "g/<id>", the session's git state) and prepares what subscribing to it
// needs; lookup finds a session by its API id, and its errors are
// returned as they are.
func (l *Relay) ResolveTopic(name string, lookup func(id string) (catalog.Meta, error)) (Topic, error) {
	hello := func() []byte { return []byte(`{"type":"hello"}`) }
	if name == IndexTopic {
		return Topic{Name: name, Hello: hello}, nil
	}
	kind, rest, slash := strings.Cut(name, "/")
	id, rel, _ := strings.Cut(rest, "/")
	if kind != "f" {
		id = rest
	}
	if !slash || kind != "s" && kind != "f" && kind != "g" {
		return Topic{}, ErrUnknownTopic
	}
	m, err := lookup(id)
	if err != nil {
		return Topic{}, err
	}
	switch kind {
	case "s":
		return Topic{Name: SessionTopic(m.Path), Hello: func() []byte { return l.SessionHello(m) }, Timed: true}, nil
	case "g":
		return Topic{Name: name, Hello: func() []byte { l.opts.Git.Watch(name, m.Cwd); return hello() }}, nil
	}
	if clean := path.Clean("/" + rel)[1:]; clean != rel {
		return Topic{}, ErrUncleanPath
	}
	_, real, err := cwdfs.Resolve(m.Cwd, rel)
	if err != nil {
		return Topic{}, err
	}
	return Topic{Name: name, Hello: func() []byte { l.opts.Files.Watch(name, real, rel); return hello() }}, nil
}
