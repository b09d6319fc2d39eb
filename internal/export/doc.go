package export

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"piweb/pisession"
)

// Branch is d with the messages of sess's context at leaf (the branch
// ending there), as the one message model decodes them.
func Branch(d Doc, sess *pisession.Session, leaf *pisession.Entry) Doc {
	d.Messages = nil
	for _, raw := range sess.ContextAt(leaf).Messages {
		if msg, ok := pisession.DecodeMessage(raw); ok {
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
	if t := pisession.Clip(strings.Join(strings.Fields(first), " "), 80); t != "" {
		return t
	}
	return "pi session " + id
}

// Document renders d in format, "md" (Markdown) or "html" (the page),
// and gives its media type; any other format is ErrFormat.
func Document(format string, d Doc) (body []byte, mediaType string, err error) {
	var b bytes.Buffer
	if mediaType, err = MediaType(format); err != nil {
		return nil, "", err
	}
	err = Write(&b, format, d)
	return b.Bytes(), mediaType, err
}

// MediaType is the media type of a document format, "md" or "html"; any
// other format is ErrFormat.
func MediaType(format string) (string, error) {
	switch format {
	case "md":
		return "text/markdown; charset=utf-8", nil
	case "html":
		return "text/html; charset=utf-8", nil
	}
	return "", ErrFormat
}

// Write renders d in format to w as it goes (a server streams it: a
// session of a 52 MB message is not rendered into one more buffer).
func Write(w io.Writer, format string, d Doc) error {
	switch format {
	case "md":
		return Markdown(w, d)
	case "html":
		return HTML(w, d)
	}
	return ErrFormat
}

// ErrFormat is a document format other than md and html.
var ErrFormat = errors.New("export: unknown format")
