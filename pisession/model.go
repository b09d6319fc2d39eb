package pisession

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"piweb/internal/jsjson"
)

// This file is piweb's one message model: pi's AgentMessage in every role
// pi 0.73 to 1.6 writes (user, assistant, toolResult, bashExecution,
// custom, system) and the in-memory roles the context builder makes
// (branchSummary, compactionSummary), with their content blocks. The index,
// the server and the exporters read messages through it, and Searchable is
// the one definition of what search sees.
//
// Messages are decoded from raw JSON with the jsjson raw view, without
// reflection: the index decodes every message it indexes. Members a role
// does not have, or of the wrong JSON type, decode to zero values; Raw keeps
// the whole object for anything not modelled here. Writing never goes
// through these types: new lines are encoded with pi's key order in
// write.go, and untouched lines keep their bytes.

// Roles of pi's messages.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleSystem            = "system"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
)

// Message is one decoded message. Which fields are set depends on Role.
type Message struct {
	// Raw is the message object as it was decoded.
	Raw  []byte
	Role string
	// Content is the content member (user, assistant, toolResult, custom,
	// system): a string or a list of blocks.
	Content Content
	// Timestamp is the message's Unix time in ms, 0 when absent or not a
	// number.
	Timestamp float64

	// Assistant messages.
	API, Provider, Model string
	// ResponseModel is the model that answered, when the provider names
	// one other than Model (pi 1.x: virtual models, routers).
	ResponseModel, ResponseID string
	// StopReason is stop, length, toolUse, error, aborted or deferred
	// (pi 1.x; "pending" only while streaming, never stored).
	StopReason, RawStopReason, ErrorMessage string
	// ThinkingLevel is the level the answer was asked with (pi 1.x:
	// off, minimal, low, medium, high, xhigh, max).
	ThinkingLevel, ProviderThinkingLevel string
	// DurationMs is how long the answer or tool run took (pi 1.x), 0 when
	// not recorded.
	DurationMs float64
	// Usage is an answer's token use, or a tool result's nested model work
	// (pi 1.x); nil when absent.
	Usage *Usage

	// Tool results.
	ToolCallID, ToolName string
	IsError              bool
	// NestedCalls lists the calls a tool made itself (pi 1.x), nil when
	// absent.
	NestedCalls *NestedCalls

	// Tool results and custom messages: raw details JSON, nil when absent.
	Details []byte

	// Shell commands run by the user (bashExecution).
	Command, Output, FullOutputPath          string
	ExitCode                                 *float64
	Cancelled, Truncated, ExcludeFromContext bool

	// Custom messages.
	CustomType string
	Display    bool

	// Branch and compaction summaries.
	Summary, FromID string
	TokensBefore    float64

	// System messages (pi 1.x): named prompt sections in file order (a
	// nil Text deletes the section in a patch), and tool changes.
	Sections     []Section
	ToolsAdded   []Tool
	ToolsRemoved []string
}

// Section is one named part of a system prompt.
type Section struct {
	Name string
	// Text is nil when a patch removes the section.
	Text *string
}

// Tool is a tool a system message declares.
type Tool struct {
	Name, Description string
	// Parameters is the raw JSON schema.
	Parameters []byte
}

// NestedCalls are the calls a tool made while it ran (pi 1.x).
type NestedCalls struct {
	Calls    []NestedCall
	Complete bool
}

// NestedCall is one nested call; Status is ok, error or unfinished.
type NestedCall struct {
	ID, Name, Status, Error string
	DurationMs              float64
	// Arguments is raw JSON, nil when absent.
	Arguments []byte
}

// Usage is token use and cost in USD as pi records it. Reasoning is
// already part of Output.
type Usage struct {
	Input, Output, CacheRead, CacheWrite float64
	// CacheWrite1h is the part of CacheWrite written for an hour (pi 1.x).
	CacheWrite1h, Reasoning float64
	TotalTokens             float64
	Cost                    Cost
}

// Cost is the price of the tokens in USD.
type Cost struct {
	Input, Output, CacheRead, CacheWrite, Total float64
	// TotalFromProvider reports that the provider stated the total.
	TotalFromProvider bool
}

// Content is a message's content, kept raw and decoded on demand.
type Content struct {
	// Raw is the JSON value, nil when the member is absent.
	Raw []byte
}

// Block is one content block: text, thinking, toolCall or image.
type Block struct {
	Type string
	// Text of a text block (TextJSON: see Content.BlocksUpTo).
	Text     string
	TextJSON []byte
	// Thinking of a thinking block; Redacted when the provider hid it.
	Thinking string
	Redacted bool
	// ID, Name, Namespace and raw Arguments of a tool call.
	ID, Name, Namespace string
	Arguments           []byte
	// MimeType and base64 Data of an image.
	MimeType, Data string
	// Raw is the block's JSON.
	Raw []byte
}

// DecodeMessage decodes a message object; ok is false when raw is not a
// JSON object.
func DecodeMessage(raw []byte) (m Message, ok bool) {
	if i := jsjson.SkipSpace(raw, 0); i >= len(raw) || raw[i] != '{' {
		return m, false
	}
	m.Raw = raw
	for k, v := range jsjson.Members(raw) {
		m.member(k, v)
	}
	return m, true
}

// Message decodes a message entry's message; ok is false for other entries
// and for a message member that is not an object.
func (e *Entry) Message() (Message, bool) {
	if e.Type != "message" {
		return Message{}, false
	}
	return DecodeMessage(e.Field("message"))
}

// member decodes one member; for a repeated key the last one wins, as in
// JSON.parse.
func (m *Message) member(k, v []byte) {
	if len(k) < 3 {
		return
	}
	key := string(k[1 : len(k)-1])
	if strings.IndexByte(key, '\\') >= 0 {
		key, _ = jsjson.DecodeString(k)
	}
	if p := m.stringField(key); p != nil {
		*p = str(v)
		return
	}
	m.otherMember(key, v)
}

// stringField returns the field a string member decodes into.
func (m *Message) stringField(key string) *string {
	switch key {
	case "role":
		return &m.Role
	case "api":
		return &m.API
	case "provider":
		return &m.Provider
	case "model":
		return &m.Model
	case "responseModel":
		return &m.ResponseModel
	case "responseId":
		return &m.ResponseID
	case "stopReason":
		return &m.StopReason
	case "rawStopReason":
		return &m.RawStopReason
	case "errorMessage":
		return &m.ErrorMessage
	case "thinkingLevel":
		return &m.ThinkingLevel
	case "providerThinkingLevel":
		return &m.ProviderThinkingLevel
	case "toolCallId":
		return &m.ToolCallID
	case "toolName":
		return &m.ToolName
	case "command":
		return &m.Command
	case "output":
		return &m.Output
	case "fullOutputPath":
		return &m.FullOutputPath
	case "customType":
		return &m.CustomType
	case "summary":
		return &m.Summary
	case "fromId":
		return &m.FromID
	}
	return nil
}

// otherMember decodes the members that are not plain strings.
func (m *Message) otherMember(key string, v []byte) {
	switch key {
	case "content":
		m.Content = Content{Raw: v}
	case "timestamp":
		m.Timestamp = jsonNumber(v)
	case "durationMs":
		m.DurationMs = jsonNumber(v)
	case "tokensBefore":
		m.TokensBefore = jsonNumber(v)
	case "usage":
		m.Usage = decodeUsage(v)
	case "isError":
		m.IsError = isTrue(v)
	case "cancelled":
		m.Cancelled = isTrue(v)
	case "truncated":
		m.Truncated = isTrue(v)
	case "excludeFromContext":
		m.ExcludeFromContext = isTrue(v)
	case "display":
		m.Display = isTrue(v)
	case "details":
		m.Details = v
	case "exitCode":
		m.ExitCode = numberPtr(v)
	case "nestedCalls":
		m.NestedCalls = decodeNestedCalls(v)
	case "sections":
		m.Sections = decodeSections(v)
	case "toolsAdded":
		m.ToolsAdded = decodeTools(v)
	case "toolsRemoved":
		m.ToolsRemoved = decodeNames(v)
	}
}

// decodeUsage decodes a usage object, nil when raw is not an object.
func decodeUsage(raw []byte) *Usage {
	var u Usage
	if !u.Decode(raw) {
		return nil
	}
	return &u
}

// Decode fills u from a usage object and reports whether raw was one;
// missing members are 0.
func (u *Usage) Decode(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	*u = Usage{}
	for k, v := range jsjson.Members(raw) {
		switch string(k) {
		case `"input"`:
			u.Input = jsonNumber(v)
		case `"output"`:
			u.Output = jsonNumber(v)
		case `"cacheRead"`:
			u.CacheRead = jsonNumber(v)
		case `"cacheWrite"`:
			u.CacheWrite = jsonNumber(v)
		case `"cacheWrite1h"`:
			u.CacheWrite1h = jsonNumber(v)
		case `"reasoning"`:
			u.Reasoning = jsonNumber(v)
		case `"totalTokens"`:
			u.TotalTokens = jsonNumber(v)
		case `"cost"`:
			u.Cost.decode(v)
		}
	}
	return true
}

func (c *Cost) decode(raw []byte) {
	*c = Cost{}
	for k, v := range jsjson.Members(raw) {
		switch string(k) {
		case `"input"`:
			c.Input = jsonNumber(v)
		case `"output"`:
			c.Output = jsonNumber(v)
		case `"cacheRead"`:
			c.CacheRead = jsonNumber(v)
		case `"cacheWrite"`:
			c.CacheWrite = jsonNumber(v)
		case `"total"`:
			c.Total = jsonNumber(v)
		case `"totalFromProvider"`:
			c.TotalFromProvider = isTrue(v)
		}
	}
}

// Add adds o's tokens and cost to u.
func (u *Usage) Add(o *Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheWrite += o.CacheWrite
	u.CacheWrite1h += o.CacheWrite1h
	u.Reasoning += o.Reasoning
	u.TotalTokens += o.TotalTokens
	u.Cost.Input += o.Cost.Input
	u.Cost.Output += o.Cost.Output
	u.Cost.CacheRead += o.Cost.CacheRead
	u.Cost.CacheWrite += o.Cost.CacheWrite
	u.Cost.Total += o.Cost.Total
}

// jsonNumber decodes a JSON number, 0 for anything else. Small integers, which
// token counts are, skip strconv.
func jsonNumber(b []byte) float64 {
	if len(b) > 0 && len(b) < 16 {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				goto slow
			}
			n = n*10 + int(c-'0')
		}
		return float64(n)
	}
slow:
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		return 0
	}
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}

func numberPtr(b []byte) *float64 {
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		return nil
	}
	f := jsonNumber(b)
	return &f
}

func isTrue(b []byte) bool { return string(b) == "true" }

// str decodes a JSON string, "" for anything else.
func str(raw []byte) string {
	s, _ := jsjson.DecodeString(raw)
	return s
}

func decodeNestedCalls(raw []byte) *NestedCalls {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	n := &NestedCalls{}
	for k, v := range jsjson.Members(raw) {
		switch string(k) {
		case `"complete"`:
			n.Complete = isTrue(v)
		case `"calls"`:
			for el := range jsjson.Elements(v) {
				n.Calls = append(n.Calls, decodeNestedCall(el))
			}
		}
	}
	return n
}

func decodeNestedCall(raw []byte) NestedCall {
	var c NestedCall
	for k, v := range jsjson.Members(raw) {
		switch string(k) {
		case `"id"`:
			c.ID = str(v)
		case `"name"`:
			c.Name = str(v)
		case `"status"`:
			c.Status = str(v)
		case `"error"`:
			c.Error = str(v)
		case `"durationMs"`:
			c.DurationMs = jsonNumber(v)
		case `"arguments"`:
			c.Arguments = v
		}
	}
	return c
}

func decodeSections(raw []byte) []Section {
	var out []Section
	for k, v := range jsjson.Members(raw) {
		s := Section{Name: str(k)}
		if t, ok := jsjson.DecodeString(v); ok {
			s.Text = &t
		}
		out = append(out, s)
	}
	return out
}

func decodeTools(raw []byte) []Tool {
	var out []Tool
	for el := range jsjson.Elements(raw) {
		out = append(out, Tool{Name: str(jsjson.Field(el, "name")),
			Description: str(jsjson.Field(el, "description")), Parameters: jsjson.Field(el, "parameters")})
	}
	return out
}

func decodeNames(raw []byte) []string {
	var out []string
	for el := range jsjson.Elements(raw) {
		out = append(out, str(jsjson.Field(el, "name")))
	}
	return out
}

// IsString reports whether the content is a plain string.
func (c Content) IsString() bool { return len(c.Raw) > 0 && c.Raw[0] == '"' }

// String returns string content, "" otherwise.
func (c Content) String() string { return str(c.Raw) }

// Blocks decodes block content; nil for string content. Elements that are
// not objects are left out.
func (c Content) Blocks() []Block { return c.BlocksUpTo(0) }

// BlocksUpTo is Blocks, but a text block's text longer than n bytes of
// JSON (n > 0) is left undecoded: Text is "" and TextJSON the JSON string,
// for a writer that decodes it a piece at a time (an export of a 52 MB
// message: issue 21).
func (c Content) BlocksUpTo(n int) []Block {
	var out []Block
	for el := range jsjson.Elements(c.Raw) {
		if el[0] == '{' {
			out = append(out, decodeBlock(el, n))
		}
	}
	return out
}

func decodeBlock(raw []byte, n int) Block {
	b := Block{Raw: raw}
	for k, v := range jsjson.Members(raw) {
		switch string(k) {
		case `"type"`:
			b.Type = str(v)
		case `"text"`:
			if b.Text, b.TextJSON = "", v; n <= 0 || len(v) <= n || v[0] != '"' {
				b.Text, b.TextJSON = str(v), nil
			}
		case `"thinking"`:
			b.Thinking = str(v)
		case `"redacted"`:
			b.Redacted = isTrue(v)
		case `"id"`:
			b.ID = str(v)
		case `"name"`:
			b.Name = str(v)
		case `"namespace"`:
			b.Namespace = str(v)
		case `"arguments"`:
			b.Arguments = v
		case `"mimeType"`:
			b.MimeType = str(v)
		case `"data"`:
			b.Data = str(v)
		}
	}
	return b
}

// Text returns the content's text: the string, or its text blocks joined
// with sep.
func (c Content) Text(sep string) string {
	if c.IsString() {
		return c.String()
	}
	var parts []string
	for el := range jsjson.Elements(c.Raw) {
		if str(jsjson.Field(el, "type")) != "text" {
			continue
		}
		if t := str(jsjson.Field(el, "text")); t != "" {
			parts = append(parts, t)
		}
	}
	if len(parts) == 1 {
		return parts[0] // not copied: a tool's output can be tens of MB (issue 21)
	}
	return strings.Join(parts, sep)
}

// Searchable is what search sees of an entry: Text for the main index,
// Tools for the one search also looks in when asked for tool output. Both
// hold non-blank, valid UTF-8 strings.
type Searchable struct {
	Text, Tools []string
}

// Empty reports whether there is nothing to index.
func (s Searchable) Empty() bool { return len(s.Text) == 0 && len(s.Tools) == 0 }

// Join returns the text, with the tool text after it when tools is set,
// one part per line.
func (s Searchable) Join(tools bool) string {
	parts := s.Text
	if tools {
		parts = append(parts[:len(parts):len(parts)], s.Tools...)
	}
	return strings.Join(parts, "\n")
}

// SearchableEntry is the one definition of searchable text: user and
// assistant text; compaction and branch summaries; tool calls' arguments,
// tool results and user shell commands with their output as Tools. System
// messages, thinking, images and custom messages are not searched.
func SearchableEntry(e *Entry) Searchable {
	switch e.Type {
	case "message":
		m, _ := e.Message()
		return m.Searchable()
	case "compaction", "branch_summary":
		return Searchable{Text: appendText(nil, searchStr(e.Field("summary")))}
	}
	return Searchable{}
}

// Searchable returns the searchable text of a message, as SearchableEntry
// defines it.
func (m *Message) Searchable() Searchable {
	var s Searchable
	switch m.Role {
	case RoleUser, RoleAssistant:
		s.Text, s.Tools = contentSearchable(m.Content.Raw)
	case RoleToolResult:
		t, _ := contentSearchable(m.Content.Raw)
		s.Tools = t
	case RoleBashExecution:
		s.Tools = appendText(appendText(nil, m.Command), m.Output)
	case RoleBranchSummary, RoleCompactionSummary:
		s.Text = appendText(nil, m.Summary)
	}
	return s
}

// contentSearchable returns the text of a content value (a string, or its
// text blocks) and its tool calls' raw arguments.
func contentSearchable(content []byte) (text, tools []string) {
	if len(content) > 0 && content[0] == '"' {
		return appendText(nil, searchStr(content)), nil
	}
	for el := range jsjson.Elements(content) {
		var typ, txt, args []byte
		for k, v := range jsjson.Members(el) {
			switch string(k) {
			case `"type"`:
				typ = v
			case `"text"`:
				txt = v
			case `"arguments"`:
				args = v
			}
		}
		switch plainString(typ, true) { // no new string for a block type
		case "text":
			text = appendText(text, searchStr(txt))
		case "toolCall":
			tools = appendText(tools, string(args))
		}
	}
	return text, tools
}

// MaxSearchText is the most of one text (a text block, a tool result, a
// summary, a command's output) that is searchable, in bytes of its JSON
// string: the rest of a pasted log or a dumped file is not searched, so
// that indexing a huge entry costs a bounded amount (issue 21).
const MaxSearchText = 8 << 20

// searchStr decodes the searchable prefix of a JSON string.
func searchStr(raw []byte) string {
	s, _, _ := jsjson.DecodeStringPrefix(raw, MaxSearchText)
	return s
}

// appendText appends s when it is not blank, as valid UTF-8 (FTS5 needs
// it), at most MaxSearchText bytes of it.
func appendText(list []string, s string) []string {
	if len(s) > MaxSearchText {
		s = strings.Clone(s[:MaxSearchText])
	}
	if strings.TrimSpace(s) == "" {
		return list
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return append(list, s)
}

// Charge is usage pi counts in a session's cost (get_session_stats and
// the /session breakdown): an answer's, a usage entry's (cache warming), a
// tool result's nested work, or a compaction's or branch summary's call.
type Charge struct {
	// Key is the /session breakdown key: provider/(responseModel ??
	// model) for answers, provider/model for usage entries, and
	// "Tools/summaries" for the rest.
	Key string
	// Answer reports an assistant message.
	Answer bool
	Usage  Usage
}

// ToolsKey is the breakdown key of tool and summary usage.
const ToolsKey = "Tools/summaries"

// Facts is what an index of entries reads of one: its message's role,
// its searchable text (SearchableEntry) and its charge (ChargeOf), the
// message decoded once rather than by each.
type Facts struct {
	Role       string
	Searchable Searchable
	Charge     Charge
	Charged    bool
}

// FactsOf returns e's Facts.
func FactsOf(e *Entry) Facts {
	if e.Type != "message" {
		c, ok := ChargeOf(e)
		return Facts{Searchable: SearchableEntry(e), Charge: c, Charged: ok}
	}
	m, ok := e.Message()
	if !ok {
		return Facts{}
	}
	c, charged := m.Charge()
	return Facts{Role: m.Role, Searchable: m.Searchable(), Charge: c, Charged: charged}
}

// ChargeOf returns the usage an entry adds to the session's cost, ok false
// when it adds none.
func ChargeOf(e *Entry) (c Charge, ok bool) {
	switch e.Type {
	case "message":
		m, isMsg := e.Message()
		if !isMsg {
			return c, false
		}
		return m.Charge()
	}
	return EntryCharge(e.Type, str(e.Field("provider")), str(e.Field("model")), e.Field("usage"))
}

// EntryCharge is ChargeOf for an entry other than a message, given by its
// type, provider, model and raw usage members.
func EntryCharge(typ, provider, model string, usage []byte) (c Charge, ok bool) {
	switch typ {
	case "usage":
		c.Key = modelKey(provider, model)
	case "compaction", "branch_summary":
		c.Key = ToolsKey
	default:
		return c, false
	}
	return c, c.Usage.Decode(usage)
}

// Charge returns the usage a message adds to the session's cost.
func (m *Message) Charge() (c Charge, ok bool) {
	if m.Usage == nil {
		return c, false
	}
	switch m.Role {
	case RoleAssistant:
		model := m.Model
		if m.ResponseModel != "" {
			model = m.ResponseModel
		}
		c.Key, c.Answer = modelKey(m.Provider, model), true
	case RoleToolResult:
		c.Key = ToolsKey
	default:
		return c, false
	}
	c.Usage = *m.Usage
	return c, true
}

// modelKey names a model provider/id as pi's breakdown does.
// A missing provider leaves just the model.
func modelKey(provider, model string) string {
	if provider == "" {
		return model
	}
	return provider + "/" + model
}
