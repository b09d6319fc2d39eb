package agent

import (
	"encoding/json"

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
