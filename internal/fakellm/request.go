package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Request is one decoded POST /v1/chat/completions body as pi's
// openai-completions provider sends it. Only the fields pi uses are decoded;
// Body keeps the exact bytes for anything else.
type Request struct {
	Model               string         `json:"model"`
	Messages            []Message      `json:"messages"`
	Stream              bool           `json:"stream"`
	StreamOptions       *StreamOptions `json:"stream_options,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	Tools               []Tool         `json:"tools,omitempty"`
	ToolChoice          any            `json:"tool_choice,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	Store               *bool          `json:"store,omitempty"`

	// Body is the raw request body.
	Body json.RawMessage `json:"-"`
	// Header is the HTTP request header (Authorization, x-stainless-retry-count…).
	Header http.Header `json:"-"`
}

// StreamOptions is the stream_options object; pi sets include_usage so the
// server must end the stream with a usage chunk.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one entry of the request's messages array.
type Message struct {
	Role       string     `json:"role"`
	Content    Content    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	// ReasoningContent is pi replaying a previous thinking block, keyed by the
	// field name it was received under (reasoning_content by default).
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// Text returns the message's text parts joined together.
func (m Message) Text() string { return m.Content.Text() }

// Content is a message content that is either a plain string (system,
// assistant, tool messages) or an array of parts (user messages).
type Content struct {
	Parts []Part
	// IsString reports that the content was sent as a JSON string.
	IsString bool
}

// Part is one element of an array content: text or image_url.
type Part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL holds the data: URL pi uses for images.
type ImageURL struct {
	URL string `json:"url"`
}

// Text joins the text parts.
func (c Content) Text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// UnmarshalJSON accepts a string, an array of parts or null.
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*c = Content{}
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("content string: %w", err)
		}
		*c = Content{Parts: []Part{{Type: "text", Text: s}}, IsString: true}
		return nil
	}
	var parts []Part
	if err := json.Unmarshal(data, &parts); err != nil {
		return fmt.Errorf("content parts: %w", err)
	}
	*c = Content{Parts: parts}
	return nil
}

// MarshalJSON writes the content back in the shape it arrived in.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.IsString {
		return json.Marshal(c.Text())
	}
	if c.Parts == nil {
		return []byte("null"), nil
	}
	return json.Marshal(c.Parts)
}

// ToolCall is an assistant tool call replayed by pi in a later request.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function half of a ToolCall; Arguments is JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is one tool definition offered to the model.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

// Kind classifies a request by what pi is asking for.
type Kind int

// The request kinds. Summarization requests are recognised by pi's fixed
// system prompt (core/compaction/utils.js SUMMARIZATION_SYSTEM_PROMPT) and
// the instruction text that follows the <conversation> block.
const (
	KindChat          Kind = iota // an ordinary agent turn
	KindCompaction                // compaction summary (initial or update)
	KindTurnPrefix                // split-turn prefix summary during compaction
	KindBranchSummary             // tree navigation branch summary
)

func (k Kind) String() string {
	switch k {
	case KindCompaction:
		return "compaction"
	case KindTurnPrefix:
		return "turn-prefix"
	case KindBranchSummary:
		return "branch-summary"
	}
	return "chat"
}

const (
	summarySystemPrefix = "You are a context summarization assistant."
	turnPrefixMarker    = "This is the PREFIX of a turn that was too large to keep."
	branchMarker        = "Create a structured summary of this conversation branch"
)

// Kind reports whether the request is an ordinary turn or one of pi's
// summarization calls.
func (r *Request) Kind() Kind {
	if !strings.HasPrefix(r.SystemPrompt(), summarySystemPrefix) {
		return KindChat
	}
	text := r.LastUserText()
	switch {
	case strings.Contains(text, turnPrefixMarker):
		return KindTurnPrefix
	case strings.Contains(text, branchMarker):
		return KindBranchSummary
	}
	return KindCompaction
}

// SystemPrompt returns the system (or developer) message text, if any.
func (r *Request) SystemPrompt() string {
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			return m.Text()
		}
	}
	return ""
}

// LastMessage returns the final message, which decides what pi expects next:
// a user message starts a turn, a tool message continues one.
func (r *Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// LastUserText returns the text of the last user message.
func (r *Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// ToolResults returns the tool messages that follow the last assistant
// message, i.e. the results pi is sending back in this request.
func (r *Request) ToolResults() []Message {
	var out []Message
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
		out = append([]Message{r.Messages[i]}, out...)
	}
	return out
}

// ToolNames lists the names of the offered tools.
func (r *Request) ToolNames() []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// IncludeUsage reports whether the client asked for a final usage chunk.
func (r *Request) IncludeUsage() bool {
	return r.StreamOptions != nil && r.StreamOptions.IncludeUsage
}

// promptTokens is a deterministic token estimate (4 bytes per token) of the
// request's messages, used for the usage chunk.
func (r *Request) promptTokens() int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Text()) + len(m.ReasoningContent)
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	return n/4 + 1
}

func decodeRequest(body []byte, h http.Header) (*Request, error) {
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode chat completion request: %w", err)
	}
	r.Body = append(json.RawMessage(nil), body...)
	r.Header = h.Clone()
	return &r, nil
}
