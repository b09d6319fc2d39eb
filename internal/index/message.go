package index

import (
	"piweb/internal/jsjson"
	"piweb/pisession"
)

// msg is what the index takes from a message entry: the session package's
// message model (only role, provider, model, responseModel and usage are
// filled on the listing pass) and, on the text pass, its searchable text.
type msg struct {
	pisession.Message
	text pisession.Searchable
}

// decodeMessage reads a message object. withText also collects the
// searchable text, as pisession.Message.Searchable defines it; without
// tools, not that of the messages that are only tool text (tool results,
// shell runs), which an index without --tools does not write: a huge tool
// output is not decoded for nothing.
func decodeMessage(raw []byte, withText, tools bool) msg {
	var m msg
	m.Message, _ = pisession.DecodeMessage(raw)
	if withText && (tools || !toolOutput(m.Role)) {
		m.text = m.Searchable()
	}
	return m
}

// toolOutput says whether a message role is tool output, whose text only
// an index with Tools holds.
func toolOutput(role string) bool {
	return role == pisession.RoleToolResult || role == pisession.RoleBashExecution
}

// entryMsg decodes what the text pass keeps of an entry: a message, or the
// searchable text of a summary; nil for other entries.
// tools is the index's Tools option.
func entryMsg(e *pisession.Entry, tools bool) *msg {
	switch e.Type {
	case "message":
		d := decodeMessage(e.Field("message"), true, tools)
		return &d
	case "compaction", "branch_summary":
		return &msg{text: pisession.SearchableEntry(e)}
	}
	return nil
}

// str decodes a JSON string value with jsjson.DecodeString, "" for
// anything else, as the session parser's Entry.String reads it.
func str(raw []byte) string {
	s, _ := jsjson.DecodeString(raw)
	return s
}
