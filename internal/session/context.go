package session

import (
	"math"
	"strconv"
)

// Context is what pi's buildSessionContext returns for a leaf: the messages
// the model sees, with the thinking level and model in effect. Messages are
// pi's message objects as raw JSON, unchanged from the file, or built the way
// pi builds them for compactions, branch summaries and custom messages.
type Context struct {
	Messages [][]byte
	// EntryIDs holds, for each message, the id of the entry it came from.
	EntryIDs []string
	// ThinkingLevel is the raw JSON of the level, nil when pi's would be
	// undefined; DefaultThinking when no change is on the path.
	ThinkingLevel []byte
	// Model is the raw JSON of {provider, modelId}, nil for null.
	Model []byte
}

var defaultThinking = []byte(`"off"`)

// Context builds pi's context at the entry with the given id. An empty id
// means pi's default leaf, the last entry in the file; an unknown id falls
// back to it too, as in pi.
func (s *Session) Context(leafID string) Context {
	var leaf *Entry
	if leafID != "" {
		leaf = s.ByID(leafID)
	}
	if leaf == nil {
		leaf = s.Leaf()
	}
	return s.ContextAt(leaf)
}

// ContextAt builds the context for the path ending at leaf; a nil leaf gives
// the empty context, like pi's explicit null leaf.
func (s *Session) ContextAt(leaf *Entry) Context {
	c := Context{ThinkingLevel: defaultThinking}
	if leaf == nil {
		return c
	}
	path := s.PathTo(leaf)
	compaction := -1
	for i, e := range path {
		c.applySetting(e)
		if e.Type == "compaction" {
			compaction = i
		}
	}
	if compaction < 0 {
		for _, e := range path {
			c.emit(e)
		}
		return c
	}
	comp := path[compaction]
	c.add(comp.ID, compactionSummary(comp))
	keep := comp.Field("firstKeptEntryId")
	found := false
	for _, e := range path[:compaction] {
		if !found && e.idKey == valueKey(keep) {
			found = true
		}
		if found {
			c.emit(e)
		}
	}
	for _, e := range path[compaction+1:] {
		c.emit(e)
	}
	return c
}

// applySetting tracks thinking level and model along the path; the last one
// wins, and an assistant message counts as a model change.
func (c *Context) applySetting(e *Entry) {
	switch e.Type {
	case "thinking_level_change":
		c.ThinkingLevel = e.Field("thinkingLevel")
	case "model_change":
		c.Model = buildObject(nil, "provider", e.Field("provider"), "modelId", e.Field("modelId"))
	case "message":
		if msg := messageOf(e); roleOf(msg) == "assistant" {
			c.Model = buildObject(nil, "provider", msg.field("provider"), "modelId", msg.field("model"))
		}
	}
}

// emit adds the message an entry contributes to the context, if any.
func (c *Context) emit(e *Entry) {
	switch e.Type {
	case "message":
		if m := e.Field("message"); m != nil {
			c.add(e.ID, m)
		}
	case "custom_message":
		c.add(e.ID, buildObject(nil, "role", []byte(`"custom"`),
			"customType", e.Field("customType"), "content", e.Field("content"),
			"display", e.Field("display"), "details", e.Field("details"),
			"timestamp", jsNumber(jsDateMs(e.Field("timestamp")))))
	case "branch_summary":
		if sum := e.Field("summary"); truthyKey(valueKey(sum)) {
			c.add(e.ID, buildObject(nil, "role", []byte(`"branchSummary"`), "summary", sum,
				"fromId", e.Field("fromId"), "timestamp", jsNumber(jsDateMs(e.Field("timestamp")))))
		}
	}
}

func compactionSummary(e *Entry) []byte {
	return buildObject(nil, "role", []byte(`"compactionSummary"`), "summary", e.Field("summary"),
		"tokensBefore", e.Field("tokensBefore"), "timestamp", jsNumber(jsDateMs(e.Field("timestamp"))))
}

func (c *Context) add(id string, msg []byte) {
	c.Messages = append(c.Messages, msg)
	c.EntryIDs = append(c.EntryIDs, id)
}

// MarshalJSON writes the context as pi's JSON.stringify would.
func (c Context) MarshalJSON() ([]byte, error) {
	b := []byte(`{"messages":[`)
	for i, m := range c.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	b = append(b, ']')
	if c.ThinkingLevel != nil {
		b = append(append(b, `,"thinkingLevel":`...), c.ThinkingLevel...)
	}
	b = append(b, `,"model":`...)
	if c.Model == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, c.Model...)
	}
	return wellFormed(append(b, '}')), nil
}

// buildObject appends a JSON object of raw members to dst, in the given key
// order, leaving out nil values the way JSON.stringify leaves out undefined.
func buildObject(dst []byte, kv ...any) []byte {
	dst = append(dst, '{')
	first := true
	for i := 0; i < len(kv); i += 2 {
		v := kv[i+1].([]byte)
		if v == nil {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = strconv.AppendQuote(dst, kv[i].(string))
		dst = append(append(dst, ':'), v...)
	}
	return append(dst, '}')
}

// jsNumber formats an integral time value; NaN becomes null as in
// JSON.stringify.
func jsNumber(f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null")
	}
	return strconv.AppendInt(nil, int64(f), 10)
}
