package session

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Typed views of records, for code that wants fields rather than bytes (the
// index, the server). They are decoded on demand from Raw; members pi does
// not document are kept in Unknown, so nothing is lost by decoding. Writing
// never goes through these types: new lines are encoded with pi's key order
// in write.go, and untouched lines keep their bytes.

// Header is the first line of a session file.
type Header struct {
	Type          string         `json:"type"`
	Version       *int           `json:"version,omitempty"`
	ID            string         `json:"id"`
	Timestamp     string         `json:"timestamp"`
	Cwd           string         `json:"cwd"`
	ParentSession string         `json:"parentSession,omitempty"`
	Unknown       jsontext.Value `json:",embed"`
}

// Fields holds the members of every entry type; which are set depends on
// Type (message, thinking_level_change, model_change, compaction,
// branch_summary, custom, custom_message, label, session_info).
type Fields struct {
	Type          string         `json:"type"`
	ID            string         `json:"id"`
	ParentID      *string        `json:"parentId"`
	Timestamp     string         `json:"timestamp"`
	Message       *Message       `json:"message,omitempty"`
	ThinkingLevel string         `json:"thinkingLevel,omitempty"`
	Provider      string         `json:"provider,omitempty"`
	ModelID       string         `json:"modelId,omitempty"`
	Summary       string         `json:"summary,omitempty"`
	FirstKeptID   string         `json:"firstKeptEntryId,omitempty"`
	TokensBefore  float64        `json:"tokensBefore,omitempty"`
	FromID        string         `json:"fromId,omitempty"`
	Details       jsontext.Value `json:"details,omitempty"`
	FromHook      *bool          `json:"fromHook,omitempty"`
	CustomType    string         `json:"customType,omitempty"`
	Data          jsontext.Value `json:"data,omitempty"`
	Content       *Content       `json:"content,omitempty"`
	Display       *bool          `json:"display,omitempty"`
	TargetID      string         `json:"targetId,omitempty"`
	Label         *string        `json:"label,omitempty"`
	Name          *string        `json:"name,omitempty"`
	Unknown       jsontext.Value `json:",embed"`
}

// Message is pi's AgentMessage in any role: user, assistant, toolResult,
// bashExecution, custom, and the in-memory branchSummary and
// compactionSummary the context builder makes.
type Message struct {
	Role      string   `json:"role"`
	Content   *Content `json:"content,omitempty"`
	Timestamp float64  `json:"timestamp,omitempty"`
	// assistant
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	StopReason   string `json:"stopReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	ResponseID   string `json:"responseId,omitempty"`
	// toolResult
	ToolCallID string         `json:"toolCallId,omitempty"`
	ToolName   string         `json:"toolName,omitempty"`
	Details    jsontext.Value `json:"details,omitempty"`
	IsError    bool           `json:"isError,omitempty"`
	// bashExecution
	Command            string `json:"command,omitempty"`
	Output             string `json:"output,omitempty"`
	ExitCode           *int   `json:"exitCode,omitempty"`
	Cancelled          bool   `json:"cancelled,omitempty"`
	Truncated          bool   `json:"truncated,omitempty"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
	// custom, branchSummary, compactionSummary
	CustomType   string         `json:"customType,omitempty"`
	Display      *bool          `json:"display,omitempty"`
	Summary      string         `json:"summary,omitempty"`
	FromID       string         `json:"fromId,omitempty"`
	TokensBefore float64        `json:"tokensBefore,omitempty"`
	Unknown      jsontext.Value `json:",embed"`
}

// Usage is an assistant message's token use and cost in USD.
type Usage struct {
	Input       float64        `json:"input"`
	Output      float64        `json:"output"`
	CacheRead   float64        `json:"cacheRead"`
	CacheWrite  float64        `json:"cacheWrite"`
	TotalTokens float64        `json:"totalTokens,omitempty"`
	Cost        *Cost          `json:"cost,omitempty"`
	Unknown     jsontext.Value `json:",embed"`
}

// Cost is the price of a message's tokens in USD.
type Cost struct {
	Input      float64        `json:"input"`
	Output     float64        `json:"output"`
	CacheRead  float64        `json:"cacheRead"`
	CacheWrite float64        `json:"cacheWrite"`
	Total      float64        `json:"total"`
	Unknown    jsontext.Value `json:",embed"`
}

// Block is one content block: text, image, thinking or toolCall.
type Block struct {
	Type              string         `json:"type"`
	Text              string         `json:"text,omitempty"`
	TextSignature     string         `json:"textSignature,omitempty"`
	Data              string         `json:"data,omitempty"`
	MimeType          string         `json:"mimeType,omitempty"`
	Thinking          string         `json:"thinking,omitempty"`
	ThinkingSignature *string        `json:"thinkingSignature,omitempty"`
	Redacted          bool           `json:"redacted,omitempty"`
	ID                string         `json:"id,omitempty"`
	Name              string         `json:"name,omitempty"`
	Arguments         jsontext.Value `json:"arguments,omitempty"`
	ThoughtSignature  string         `json:"thoughtSignature,omitempty"`
	PartialJSON       string         `json:"partialJson,omitempty"`
	Unknown           jsontext.Value `json:",embed"`
}

// Content is a message's content: a plain string (user and custom messages
// may use one) or a list of blocks.
type Content struct {
	Text     string
	IsString bool
	Blocks   []Block
}

// UnmarshalJSON accepts either form.
func (c *Content) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		c.IsString = true
		return json.Unmarshal(b, &c.Text)
	}
	return json.Unmarshal(b, &c.Blocks)
}

// MarshalJSON writes the form it was read in.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.IsString {
		return json.Marshal(c.Text)
	}
	return json.Marshal(c.Blocks)
}

// PlainText returns the text of the content as pi's listing extracts it:
// the string, or the text blocks joined with one space.
func (c *Content) PlainText() string {
	if c == nil {
		return ""
	}
	if c.IsString {
		return c.Text
	}
	var out []byte
	for _, b := range c.Blocks {
		if b.Type == "text" {
			if len(out) > 0 {
				out = append(out, ' ')
			}
			out = append(out, b.Text...)
		}
	}
	return string(out)
}

// decodeOptions tolerates what real files contain: duplicate keys (last
// wins, as in JavaScript) and invalid UTF-8.
var decodeOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// Fields decodes the entry's members.
func (e *Entry) Fields() (*Fields, error) {
	if !e.IsObject() {
		return nil, fmt.Errorf("line %d is not an object", e.Line)
	}
	var f Fields
	if err := json.Unmarshal(e.Raw, &f, decodeOptions); err != nil {
		return nil, fmt.Errorf("line %d: %w", e.Line, err)
	}
	return &f, nil
}

// Message decodes a message entry's message.
func (e *Entry) Message() (*Message, error) {
	raw := e.Field("message")
	if e.Type != "message" || raw == nil {
		return nil, fmt.Errorf("line %d is not a message entry", e.Line)
	}
	return DecodeMessage(raw)
}

// DecodeMessage decodes a message object, such as one of Context.Messages.
func DecodeMessage(raw []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(raw, &m, decodeOptions); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	return &m, nil
}

// DecodeHeader decodes the session header.
func (s *Session) DecodeHeader() (*Header, error) {
	if s.Header == nil {
		return nil, ErrNoHeader
	}
	var h Header
	if err := json.Unmarshal(s.Header.Raw, &h, decodeOptions); err != nil {
		return nil, fmt.Errorf("decode header: %w", err)
	}
	return &h, nil
}
