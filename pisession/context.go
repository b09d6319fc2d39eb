package pisession

import (
	"math"
	"slices"
	"strconv"

	"piweb/internal/jsjson"
)

// Context is what pi's buildSessionContext returns for a leaf: the messages
// the model sees, with the thinking level and model in effect. Messages are
// pi's message objects as raw JSON, unchanged from the file, or built the way
// pi builds them for compactions, branch summaries, custom messages, edited
// and null content. It follows pi 1.6's projection
// (buildContextEntries, projectContextEntry): context_edit entries apply,
// a compaction's systemMessage comes first, system messages in its kept
// range are dropped.
type Context struct {
	Messages [][]byte
	// EntryIDs holds, for each message, the id of the entry it came from
	// (pi's projection provenance).
	EntryIDs []string
	// ThinkingLevel is the raw JSON of the level, nil when pi's would be
	// undefined; DefaultThinking when no change is on the path.
	ThinkingLevel []byte
	// Model is the raw JSON of {provider, modelId}, nil for null.
	Model []byte
	// Edits lists the context_edit entries in effect, in the order of the
	// entries they edit: what the model sees differs from the file there.
	Edits []Edit
}

// Edit is a context_edit in effect on a context entry.
type Edit struct {
	// TargetID is the edited entry's id, EditID the context_edit's.
	TargetID, EditID string
	// Omitted reports a null replacement: the entry sends nothing.
	Omitted bool
	// Content is the raw replacement content otherwise.
	Content []byte
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
	t := typesOn(path)
	c.settings(path, t.level)
	entries := path
	if t.compaction {
		entries = contextEntries(path)
	}
	c.Messages = make([][]byte, 0, len(entries))
	c.EntryIDs = make([]string, 0, len(entries))
	var edits map[string]*Entry
	if t.edit {
		edits = map[string]*Entry{}
		for _, e := range entries {
			if e.Type == "context_edit" {
				edits[valueKey(e.Field("targetId"))] = e
			}
		}
	}
	for i, e := range entries {
		if e.Type == "compaction" && i > 0 {
			continue // an older compaction inside the kept range
		}
		c.project(e, edits[e.idK()])
	}
	return c
}

// pathTypes tells which of the entry types that make the context more
// than the path's messages a path holds: ContextAt makes no pass over a
// long path for those it lacks (most paths have none).
type pathTypes struct{ compaction, edit, level bool }

// typesOn returns the pathTypes of path.
func typesOn(path []*Entry) (t pathTypes) {
	for _, e := range path {
		switch e.Type {
		case "compaction":
			t.compaction = true
		case "context_edit":
			t.edit = true
		case "thinking_level_change":
			t.level = true
		}
	}
	return t
}

// contextEntries is pi's buildContextEntries: the path, or with a
// compaction on it, the last compaction, the kept entries before it from
// firstKeptEntryId on (system messages left out) and everything after it.
// An unknown firstKeptEntryId, or the compaction's own id (retain none),
// keeps nothing before it.
func contextEntries(path []*Entry) []*Entry {
	var comp *Entry
	for _, e := range path {
		if e.Type == "compaction" {
			comp = e
		}
	}
	if comp == nil {
		return path
	}
	k := slices.IndexFunc(path, func(e *Entry) bool { return e.idK() == comp.idK() })
	out := []*Entry{comp}
	keep, found := valueKey(comp.Field("firstKeptEntryId")), false
	for _, e := range path[:k] {
		found = found || e.idK() == keep
		if found && e.Role() != RoleSystem {
			out = append(out, e)
		}
	}
	return append(out, path[k+1:]...)
}

// applySettings finds the thinking level and model in effect at the end
// of the path: the last change of each wins, and an assistant message
// counts as a model change. It looks from the end, so a long path costs
// only the entries after the last of each.
func (c *Context) applySettings(path []*Entry) { c.settings(path, true) }

// settings is applySettings; hasLevel false says that the path holds no
// thinking level change, so that the walk stops at the last model.
func (c *Context) settings(path []*Entry, hasLevel bool) {
	level, model := !hasLevel, false
	for i := len(path) - 1; i >= 0 && !(level && model); i-- {
		e := path[i]
		switch e.Type {
		case "thinking_level_change":
			if !level {
				c.ThinkingLevel, level = e.Field("thinkingLevel"), true
			}
		case "model_change":
			if !model {
				c.Model, model = buildObject(nil, "provider", e.Field("provider"), "modelId", e.Field("modelId")), true
			}
		case "message":
			if msg := messageOf(e); !model && roleOf(msg) == "assistant" {
				c.Model, model = buildObject(nil, "provider", msg.field("provider"), "modelId", msg.field("model")), true
			}
		}
	}
}

// project adds the messages of one context entry, with its latest edit
// applied (pi's projectContextEntry).
func (c *Context) project(e, edit *Entry) {
	if edit == nil && e.Type == "message" { // the common case, without a slice
		if m := messageEntryMessage(e); m != nil {
			c.add(e.ID, m)
		}
		return
	}
	msgs := entryMessages(e)
	if edit == nil || len(msgs) == 0 {
		c.add(e.ID, msgs...)
		return
	}
	repl := edit.Field("replacement")
	if repl == nil {
		c.add(e.ID, msgs...) // pi throws reading .content of undefined
		return
	}
	ed := Edit{TargetID: e.ID, EditID: edit.ID, Omitted: string(repl) == "null"}
	if !ed.Omitted {
		ed.Content = jsjson.Field(repl, "content")
		for i, m := range msgs {
			msgs[i] = replaceContent(m, ed.Content)
		}
		c.add(e.ID, msgs...)
	}
	c.Edits = append(c.Edits, ed)
}

// replaceContent gives an editable message (user, assistant, toolResult,
// custom) the replacement content; string content becomes one text block
// for assistant and tool results. Other roles stay as they are.
func replaceContent(msg, content []byte) []byte {
	role := roleOf(objectView(msg))
	switch role {
	case RoleAssistant, RoleToolResult:
		if len(content) > 0 && content[0] == '"' {
			content = buildArray(buildObject(nil, "type", []byte(`"text"`), "text", content))
		}
	case RoleUser, RoleCustom:
	default:
		return msg
	}
	return setMember(msg, "content", content)
}

// entryMessages is pi's sessionEntryToContextMessages for one entry.
func entryMessages(e *Entry) [][]byte {
	switch e.Type {
	case "message":
		return messageEntryMessages(e)
	case "custom_message":
		content := e.Field("content")
		if content == nil || string(content) == "null" {
			content = []byte("[]")
		}
		return [][]byte{buildObject(nil, "role", []byte(`"custom"`),
			"customType", e.Field("customType"), "content", content,
			"display", e.Field("display"), "details", e.Field("details"),
			"timestamp", jsNumber(jsDateMs(e.Field("timestamp"))))}
	case "branch_summary":
		if sum := e.Field("summary"); truthyKey(valueKey(sum)) {
			return [][]byte{buildObject(nil, "role", []byte(`"branchSummary"`), "summary", sum,
				"fromId", e.Field("fromId"), "timestamp", jsNumber(jsDateMs(e.Field("timestamp"))))}
		}
	case "compaction":
		sum := buildObject(nil, "role", []byte(`"compactionSummary"`), "summary", e.Field("summary"),
			"tokensBefore", e.Field("tokensBefore"), "timestamp", jsNumber(jsDateMs(e.Field("timestamp"))))
		if sys := e.Field("systemMessage"); truthyKey(valueKey(sys)) {
			return [][]byte{sys, sum}
		}
		return [][]byte{sum}
	}
	return nil
}

// messageEntryMessages returns a message entry's message as a list.
func messageEntryMessages(e *Entry) [][]byte {
	if m := messageEntryMessage(e); m != nil {
		return [][]byte{m}
	}
	return nil
}

// messageEntryMessage returns a message entry's message, with null or
// missing content normalised as pi 1.6 does: "" for system messages, []
// for user, assistant and tool results.
func messageEntryMessage(e *Entry) []byte {
	m := e.message()
	if m == nil || e.contentSet {
		return m
	}
	mv := messageOf(e)
	content := mv.field("content")
	if mv.object && (content == nil || string(content) == "null") {
		switch roleOf(mv) {
		case RoleSystem:
			return setMember(m, "content", []byte(`""`))
		case RoleUser, RoleAssistant, RoleToolResult:
			return setMember(m, "content", []byte(`[]`))
		}
	}
	return m
}

func (c *Context) add(id string, msgs ...[]byte) {
	for _, m := range msgs {
		c.Messages = append(c.Messages, m)
		c.EntryIDs = append(c.EntryIDs, id)
	}
}

// setMember returns obj with member key set to val, as JavaScript's
// {...obj, [key]: val} followed by JSON.stringify: repeated keys collapse
// to the first position with the last value, the key keeps its place or
// goes last, and a nil val leaves it out (undefined).
func setMember(obj []byte, key string, val []byte) []byte {
	var members []rawMember
	pos := map[string]int{}
	for k, v := range jsjson.Members(obj) {
		name, _ := jsjson.DecodeString(k)
		if i, ok := pos[name]; ok {
			members[i].value = v
			continue
		}
		pos[name] = len(members)
		members = append(members, rawMember{name, v})
	}
	if i, ok := pos[key]; ok {
		members[i].value = val
	} else {
		members = append(members, rawMember{key, val})
	}
	return encodeMembers(members)
}

// buildArray returns a JSON array of raw elements.
func buildArray(els ...[]byte) []byte {
	out := []byte{'['}
	for i, el := range els {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, el...)
	}
	return append(out, ']')
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
	return jsjson.WellFormedBytes(append(b, '}')), nil
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

// SystemMessages counts the system messages (role "system") of a context.
func SystemMessages(msgs [][]byte) int {
	n := 0
	for _, m := range msgs {
		if string(jsjson.Field(m, "role")) == `"system"` {
			n++
		}
	}
	return n
}
