package index

import (
	"bytes"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// msg is what the index takes from a message entry: the members of the
// session package's message model that the metadata and the text pass
// read (role, provider, model, responseModel and usage; the listing pass
// fills no more) and, on the text pass, its searchable text. It is kept
// for every entry until the update is applied: the whole model (a
// pisession.Message, 600 bytes and a string for each member) was a
// tenth of a cold index's allocations.
type msg struct {
	Role, Provider, Model, ResponseModel string
	// Usage is the message's usage, nil when absent or not an object.
	Usage *pisession.Usage
	usage pisession.Usage // what Usage points at, when decoded here
	text  pisession.Searchable
}

// message is m as the session package's model, for its definitions of
// a charge and of searchable text; the fields given are those they read.
func (m *msg) message(content pisession.Content, command, output, summary string) pisession.Message {
	return pisession.Message{Role: m.Role, Provider: m.Provider, Model: m.Model, ResponseModel: m.ResponseModel,
		Usage: m.Usage, Content: content, Command: command, Output: output, Summary: summary}
}

// Charge is pisession.Message.Charge.
func (m *msg) Charge() (pisession.Charge, bool) {
	pm := m.message(pisession.Content{}, "", "", "")
	return pm.Charge()
}

// msgMembers are the raw members of a message object that msg reads
// (nil when absent), the last of each when a key repeats.
type msgMembers struct {
	role, provider, model, responseModel, usage  []byte
	content, command, output, summary, timestamp []byte
}

// ofEntry takes the members of a message entry's message from the spans
// its parse took (no second scan of the message), those msg keeps of
// its role only (set).
func (r *msgMembers) ofEntry(e *pisession.Entry) {
	r.role = e.MessageField("role")
	switch internStr(r.role) {
	case pisession.RoleAssistant:
		r.provider, r.model = e.MessageField("provider"), e.MessageField("model")
		r.responseModel, r.usage = e.MessageField("responseModel"), e.MessageField("usage")
		r.content, r.timestamp = e.MessageField("content"), e.MessageField("timestamp")
	case pisession.RoleUser:
		r.content, r.timestamp = e.MessageField("content"), e.MessageField("timestamp")
	case pisession.RoleToolResult:
		r.content, r.usage = e.MessageField("content"), e.MessageField("usage")
	case pisession.RoleBashExecution:
		r.command, r.output = e.MessageField("command"), e.MessageField("output")
	case pisession.RoleBranchSummary, pisession.RoleCompactionSummary:
		r.summary = e.MessageField("summary")
	}
}

// ofObject scans raw, a JSON value, for them: none unless it is an object.
func (r *msgMembers) ofObject(raw []byte) {
	if i := jsjson.SkipSpace(raw, 0); i >= len(raw) || raw[i] != '{' {
		return
	}
	for k, v := range jsjson.Members(raw) {
		switch string(memberKey(k)) {
		case `"role"`:
			r.role = v
		case `"provider"`:
			r.provider = v
		case `"model"`:
			r.model = v
		case `"responseModel"`:
			r.responseModel = v
		case `"usage"`:
			r.usage = v
		case `"content"`:
			r.content = v
		case `"command"`:
			r.command = v
		case `"output"`:
			r.output = v
		case `"summary"`:
			r.summary = v
		case `"timestamp"`:
			r.timestamp = v
		}
	}
}

// decode reads a message object as pisession.DecodeMessage does, the
// members msg has only.
func (m *msg) decode(raw []byte, withText, tools bool) {
	var r msgMembers
	r.ofObject(raw)
	m.set(&r, withText, tools)
}

// decodeEntry is decode for a message entry's message.
func (m *msg) decodeEntry(e *pisession.Entry, withText, tools bool) {
	var r msgMembers
	r.ofEntry(e)
	m.set(&r, withText, tools)
}

// set decodes r into m. withText also collects the searchable text, as
// pisession.Message.Searchable defines it; without tools, not that of
// the messages that are only tool text (tool results, shell runs), which
// an index without --tools does not write: a huge tool output is not
// decoded for nothing.
//
// Of the model and the usage, m keeps what its readers read of its role:
// an answer's model (the metadata's models, the entries' model column)
// and usage (its charge), a tool result's usage (its charge); the text
// and the listing's fold read a user's or an answer's content and
// timestamp, a tool result's content, a shell run's command and output,
// a summary's summary.
func (m *msg) set(r *msgMembers, withText, tools bool) {
	m.Role = internStr(r.role)
	if m.Role == pisession.RoleAssistant {
		m.Provider, m.Model, m.ResponseModel = internStr(r.provider), internStr(r.model), internStr(r.responseModel)
	}
	if (m.Role == pisession.RoleAssistant || m.Role == pisession.RoleToolResult) && m.usage.Decode(r.usage) {
		m.Usage = &m.usage
	}
	if withText && (tools || !toolOutput(m.Role)) {
		pm := m.message(pisession.Content{Raw: r.content}, textOf(m.Role, r.command), textOf(m.Role, r.output), textOf(m.Role, r.summary))
		m.text = pm.Searchable()
	}
}

// textOf decodes a string member Searchable reads for role: a shell
// run's command and output, a summary's summary (the others are not
// decoded for nothing).
func textOf(role string, raw []byte) string {
	switch role {
	case pisession.RoleBashExecution, pisession.RoleBranchSummary, pisession.RoleCompactionSummary:
		return str(raw)
	}
	return ""
}

// memberKey returns a member's key, quotes included, as DecodeMessage
// reads it: with its escapes decoded (then quoted again without
// escaping: no key msg reads has a quote or a backslash).
func memberKey(k []byte) []byte {
	if bytes.IndexByte(k, '\\') < 0 {
		return k
	}
	s, _ := jsjson.DecodeString(k)
	return []byte(`"` + s + `"`)
}

// internStr is str for the short strings a corpus repeats (roles,
// providers, models), without allocating for them.
func internStr(raw []byte) string {
	for _, r := range roles {
		if len(raw) == len(r)+2 && string(raw[1:len(raw)-1]) == r && raw[0] == '"' {
			return r
		}
	}
	return intern(raw)
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
		m := new(msg)
		m.decodeEntry(e, true, tools)
		return m
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
