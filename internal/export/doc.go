package export

import (
	"strings"

	"piweb/internal/session"
)

// Branch is d with the messages of sess's context at leaf (the branch
// ending there), as the one message model decodes them.
func Branch(d Doc, sess *session.Session, leaf *session.Entry) Doc {
	d.Messages = nil
	for _, raw := range sess.ContextAt(leaf).Messages {
		if msg, ok := session.DecodeMessage(raw); ok {
			d.Messages = append(d.Messages, msg)
		}
	}
	return d
}

// Title is a document's title: the session's name, else its first
// message with white space collapsed, clipped to 80 characters, else
// "pi session <id>".
func Title(name, first, id string) string {
	if name != "" {
		return name
	}
	if t := session.Clip(strings.Join(strings.Fields(first), " "), 80); t != "" {
		return t
	}
	return "pi session " + id
}
