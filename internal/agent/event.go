package agent

import (
	"encoding/json"
	"fmt"

	"piweb/internal/broker"
	"piweb/internal/jsjson"
)

// Event types pi writes on stdout (pi-rpc.md §2.2), plus the ones piweb
// itself publishes to subscribers (prefixed "piweb_" so they cannot clash
// with a future pi event).
const (
	EvAgentStart         = "agent_start"
	EvAgentEnd           = "agent_end"
	EvAgentSettled       = "agent_settled"  // pi >= 0.80.4: no more automatic work
	EvEntryAppended      = "entry_appended" // pi >= 0.86: pi appended an entry outside a message
	EvBashUpdate         = "bash_execution_update"
	EvTurnStart          = "turn_start"
	EvTurnEnd            = "turn_end"
	EvMessageStart       = "message_start"
	EvMessageUpdate      = "message_update"
	EvMessageEnd         = "message_end"
	EvToolStart          = "tool_execution_start"
	EvToolUpdate         = "tool_execution_update"
	EvToolEnd            = "tool_execution_end"
	EvQueueUpdate        = "queue_update"
	EvCompactionStart    = "compaction_start"
	EvCompactionEnd      = "compaction_end"
	EvAutoRetryStart     = "auto_retry_start"
	EvAutoRetryEnd       = "auto_retry_end"
	EvSessionInfoChanged = "session_info_changed"
	EvThinkingChanged    = "thinking_level_changed"
	EvExtensionUIRequest = "extension_ui_request"
	EvExtensionError     = "extension_error"
	EvResponse           = "response"              // an id-less response nobody waited for
	EvState              = "piweb_state"           // Status changed
	EvExit               = "piweb_exit"            // pi exited; see ExitInfo
	EvLagged             = "piweb_lagged"          // the subscriber missed events; resync
	EvOutsideChange      = "piweb_outside_change"  // another process wrote the session file
	EvSessionChanged     = "piweb_session_changed" // fork/clone/new/switch moved the worker
	EvExtensionUITimeout = "piweb_ui_timeout"      // a dialog was answered by piweb's timeout
	EvUIAnswered         = "piweb_ui_answered"     // a dialog was answered (by any tab)
)

// Event is one line pi wrote on stdout (or one piweb-made notice): the
// broker's one event type, so that a worker publishes straight into the
// broker the server streams from. Raw is the line without its LF, exactly
// as pi wrote it, so it can be forwarded to a browser without
// re-encoding; it must not be modified. Type is skimmed from the line;
// everything else is decoded on demand (DecodeEvent, DeltaOf, MessageOf).
// Topic, Seq and At (when the broker received it) are assigned by the
// broker (zero before).
type Event = broker.Event

// NewEvent builds a piweb event of type typ whose JSON has the fields of v
// (a struct or map) plus "type".
func NewEvent(typ string, v any) Event {
	b, err := json.Marshal(v)
	if err != nil || len(b) < 2 || b[0] != '{' {
		b = []byte("{}")
	}
	raw := make([]byte, 0, len(b)+len(typ)+12)
	raw = append(raw, `{"type":`...)
	raw, _ = appendJSONString(raw, typ)
	if len(b) > 2 {
		raw = append(raw, ',')
		raw = append(raw, b[1:]...)
	} else {
		raw = append(raw, '}')
	}
	return Event{Type: typ, Raw: raw}
}

func appendJSONString(dst []byte, s string) ([]byte, error) {
	b, err := json.Marshal(s)
	return append(dst, b...), err
}

// DecodeEvent unmarshals the whole event into v. Avoid it for
// message_update on hot paths; use DeltaOf instead.
func DecodeEvent(e Event, v any) error {
	if err := json.Unmarshal(e.Raw, v); err != nil {
		return fmt.Errorf("decode %s event: %w", e.Type, err)
	}
	return nil
}

// AssistantEvent is the cheap part of a message_update: what changed, not
// the partial message (which pi repeats in full on every update).
type AssistantEvent struct {
	Type         string          // text_delta, toolcall_end, …
	ContentIndex int             // index into the message content
	Delta        string          // for *_delta
	ToolCall     json.RawMessage // for toolcall_end
}

// DeltaOf skims a message_update for its assistantMessageEvent, skipping
// the partial message.
func DeltaOf(e Event) (AssistantEvent, bool) {
	ame := e.Field("assistantMessageEvent")
	if ame == nil {
		return AssistantEvent{}, false
	}
	a := AssistantEvent{Type: fieldString(ame, "type"), Delta: fieldString(ame, "delta")}
	if ci := jsjson.FirstField(ame, "contentIndex"); ci != nil {
		_ = json.Unmarshal(ci, &a.ContentIndex)
	}
	if a.Type == "toolcall_end" {
		a.ToolCall = json.RawMessage(jsjson.FirstField(ame, "toolCall"))
	}
	return a, true
}

// MessageInfo is the small part of a message_start/message_end event the
// state machine needs.
type MessageInfo struct {
	Role         string `json:"role"`
	StopReason   string `json:"stopReason"`
	ErrorMessage string `json:"errorMessage"`
}

// MessageOf skims the role and stop reason of the event's message.
func MessageOf(e Event) MessageInfo {
	m := e.Field("message")
	return MessageInfo{
		Role:         fieldString(m, "role"),
		StopReason:   fieldString(m, "stopReason"),
		ErrorMessage: fieldString(m, "errorMessage"),
	}
}

// UIRequest is an extension_ui_request. Dialog methods (select, confirm,
// input, editor) wait for Client.AnswerUI; the others are notices.
type UIRequest struct {
	ID          string   `json:"id"`
	Method      string   `json:"method"`
	Title       string   `json:"title,omitempty"`
	Message     string   `json:"message,omitempty"`
	Options     []string `json:"options,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Prefill     string   `json:"prefill,omitempty"`
	Timeout     int      `json:"timeout,omitempty"` // ms, set by the extension
	NotifyType  string   `json:"notifyType,omitempty"`
	StatusKey   string   `json:"statusKey,omitempty"`
	StatusText  string   `json:"statusText,omitempty"`
	Text        string   `json:"text,omitempty"`
}

// IsDialog reports whether pi waits for an answer.
func (r UIRequest) IsDialog() bool {
	switch r.Method {
	case "select", "confirm", "input", "editor":
		return true
	}
	return false
}
