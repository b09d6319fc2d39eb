package agent

import (
	"encoding/json"
	"strings"

	"piweb/internal/jsjson"
)

// The browser contract for streaming is pi 1.x's: a message_update carries
// only what changed ({"type","usage","assistantMessageEvent"}), never the
// cumulative message. pi 0.73 repeats the whole partial message twice in
// every update (as "message" and as the event's "partial"), and its
// toolcall_start names neither the call's id nor its tool. normalizeUpdate
// rewrites such a line into the 1.x shape; a 1.x line is returned as is.

// normalizeUpdate returns the 1.x form of a message_update line.
func normalizeUpdate(raw []byte) []byte {
	msg := jsjson.FirstField(raw, "message")
	ame := jsjson.FirstField(raw, "assistantMessageEvent")
	if msg == nil || ame == nil {
		return raw // already delta-only
	}
	partial := jsjson.Field(ame, "partial")
	if partial == nil {
		partial = msg
	}
	out := make([]byte, 0, 128+len(ame)-len(partial))
	out = append(out, `{"type":"message_update"`...)
	if u := jsjson.Field(partial, "usage"); u != nil {
		out = append(out, `,"usage":`...)
		out = append(out, u...)
	}
	out = append(out, `,"assistantMessageEvent":{`...)
	first := true
	for k, v := range jsjson.Members(ame) {
		if jsjson.KeyIs(k, "partial") {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, v...)
	}
	if fieldString(ame, "type") == "toolcall_start" && jsjson.Field(ame, "id") == nil {
		out = appendToolStart(out, partial, ame)
	}
	return append(out, '}', '}')
}

// appendToolStart adds the id and toolName of the call being started, which
// pi 0.73 leaves in the partial message's content block.
func appendToolStart(out, partial, ame []byte) []byte {
	var ci int
	_ = json.Unmarshal(jsjson.Field(ame, "contentIndex"), &ci)
	i := 0
	for block := range jsjson.Elements(jsjson.Field(partial, "content")) {
		if i == ci {
			if id := jsjson.Field(block, "id"); id != nil {
				out = append(out, `,"id":`...)
				out = append(out, id...)
			}
			if name := jsjson.Field(block, "name"); name != nil {
				out = append(out, `,"toolName":`...)
				out = append(out, name...)
			}
			return out
		}
		i++
	}
	return out
}

// assembler rebuilds the assistant message pi is streaming from
// message_start, the delta-only message_update events and message_end, as
// pi's docs/json.md describes: deltas append to their content block by
// contentIndex, a *_end event replaces its block, and message_end replaces
// the whole message. It lets a page that joins mid-stream draw the message
// so far. Not safe for concurrent use.
type assembler struct {
	head   map[string]json.RawMessage // message_start's message, content aside
	blocks []*block
	live   bool
}

// block is one content block being streamed.
type block struct {
	typ  string          // text, thinking, toolCall
	text strings.Builder // text, thinking, or a tool call's partial arguments
	done json.RawMessage // the block as its *_end event gave it
	id   string          // tool call id and name from toolcall_start
	name string
}

// apply feeds one (normalised) event.
func (a *assembler) apply(e Event) {
	switch e.Type {
	case EvMessageStart:
		a.start(e.Field("message"))
	case EvMessageUpdate:
		if a.live {
			a.update(e)
		}
	case EvMessageEnd, EvAgentEnd:
		*a = assembler{}
	}
}

func (a *assembler) start(msg []byte) {
	*a = assembler{}
	if fieldString(msg, "role") != "assistant" {
		return
	}
	if json.Unmarshal(msg, &a.head) != nil {
		return
	}
	delete(a.head, "content")
	a.live = true
}

func (a *assembler) update(e Event) {
	ame := e.Field("assistantMessageEvent")
	if u := e.Field("usage"); u != nil {
		a.head["usage"] = json.RawMessage(u)
	}
	typ := fieldString(ame, "type")
	var ci int
	if json.Unmarshal(jsjson.Field(ame, "contentIndex"), &ci) != nil || ci < 0 || ci > 1<<16 {
		return
	}
	for len(a.blocks) <= ci {
		a.blocks = append(a.blocks, &block{})
	}
	b := a.blocks[ci]
	switch typ {
	case "text_start", "thinking_start", "toolcall_start":
		*b = block{typ: blockType(typ), id: fieldString(ame, "id"), name: fieldString(ame, "toolName")}
	case "text_delta", "thinking_delta", "toolcall_delta":
		b.text.WriteString(fieldString(ame, "delta"))
	case "text_end", "thinking_end":
		b.done = endBlock(blockType(typ), jsjson.Field(ame, "content"))
	case "toolcall_end":
		b.done = json.RawMessage(jsjson.Field(ame, "toolCall"))
	}
}

func blockType(event string) string {
	switch {
	case strings.HasPrefix(event, "text_"):
		return "text"
	case strings.HasPrefix(event, "thinking_"):
		return "thinking"
	}
	return "toolCall"
}

// endBlock is the finished block of a text_end or thinking_end.
func endBlock(typ string, content []byte) json.RawMessage {
	if content == nil {
		return nil
	}
	key := "text"
	if typ == "thinking" {
		key = "thinking"
	}
	return json.RawMessage(`{"type":"` + typ + `","` + key + `":` + string(content) + `}`)
}

// snapshot returns the message streamed so far, or nil when none streams.
func (a *assembler) snapshot() json.RawMessage {
	if !a.live {
		return nil
	}
	content := make([]json.RawMessage, 0, len(a.blocks))
	for _, b := range a.blocks {
		content = append(content, b.json())
	}
	m := make(map[string]any, len(a.head)+1)
	for k, v := range a.head {
		m[k] = v
	}
	m["content"] = content
	out, _ := json.Marshal(m)
	return out
}

func (b *block) json() json.RawMessage {
	if b.done != nil {
		return b.done
	}
	var v any
	switch b.typ {
	case "text":
		v = map[string]string{"type": "text", "text": b.text.String()}
	case "thinking":
		v = map[string]string{"type": "thinking", "thinking": b.text.String()}
	case "toolCall":
		v = map[string]any{"type": "toolCall", "id": b.id, "name": b.name, "arguments": map[string]any{},
			"partialArgs": b.text.String()}
	default:
		v = map[string]string{"type": "text", "text": ""}
	}
	out, _ := json.Marshal(v)
	return out
}
