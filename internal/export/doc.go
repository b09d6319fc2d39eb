package export

import (
	"bytes"
	"errors"
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

// Document renders d in format, "md" (Markdown) or "html" (the page),
// and gives its media type; any other format is ErrFormat.
func Document(format string, d Doc) (body []byte, mediaType string, err error) {
	var b bytes.Buffer
	switch format {
	case "md":
		err, mediaType = Markdown(&b, d), "text/markdown; charset=utf-8"
	case "html":
		err, mediaType = HTML(&b, d), "text/html; charset=utf-8"
	default:
		return nil, "", ErrFormat
	}
	return b.Bytes(), mediaType, err
}

// ErrFormat is a document format other than md and html.
var ErrFormat = errors.New("export: unknown format")
