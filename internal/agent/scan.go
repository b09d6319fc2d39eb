package agent

import (
	"bytes"

	"piweb/internal/jsjson"
)

// pi's message_update lines repeat the whole partial message twice, so
// decoding them costs O(message) per delta. The RPC reader reads the few
// members it needs through jsjson's raw view instead: FirstField stops after
// the first key in practice (pi writes "type" first) and otherwise only
// skips over bytes.

// fieldString returns the string value of the top-level member key of obj,
// or "" when it is absent or not a string. The names pi uses for events and
// responses are interned, so reading the type of a line allocates nothing.
func fieldString(obj []byte, key string) string {
	v := jsjson.FirstField(obj, key)
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return intern(v[1 : len(v)-1])
	}
	s, _ := jsjson.DecodeString(v)
	return s
}

// intern returns a shared string for the event and response names pi uses,
// so that reading the type of a line allocates nothing.
func intern(b []byte) string {
	switch string(b) {
	case "response":
		return "response"
	case "message_update":
		return "message_update"
	case "message_start":
		return "message_start"
	case "message_end":
		return "message_end"
	case "tool_execution_start":
		return "tool_execution_start"
	case "tool_execution_update":
		return "tool_execution_update"
	case "tool_execution_end":
		return "tool_execution_end"
	case "agent_start":
		return "agent_start"
	case "agent_end":
		return "agent_end"
	case "agent_settled":
		return "agent_settled"
	case "entry_appended":
		return "entry_appended"
	case "turn_start":
		return "turn_start"
	case "turn_end":
		return "turn_end"
	case "text_delta":
		return "text_delta"
	case "thinking_delta":
		return "thinking_delta"
	case "toolcall_delta":
		return "toolcall_delta"
	}
	return string(b)
}
