package fakellm

import (
	"encoding/json"
	"fmt"
	"time"
)

// Reply is one scripted answer. The zero value streams an empty text answer.
// Construct replies with Text, Think, Tools, Error, Overflow or Drop and
// adjust them with the With* methods; fields may also be set directly.
type Reply struct {
	// Text is the answer, streamed as Chunks content deltas.
	Text string
	// Thinking, if set, is streamed before Text as reasoning deltas under
	// ThinkingField ("reasoning_content" when empty; pi also reads
	// "reasoning" and "reasoning_text").
	Thinking      string
	ThinkingField string
	// Calls are tool calls streamed after the text; their arguments are
	// split into Chunks fragments.
	Calls []Call
	// Chunks is the number of deltas each part is split into (0: a default
	// of up to 8 text deltas and 3 argument fragments).
	Chunks int
	// Delay is slept before every delta; use it for slow streams.
	Delay time.Duration
	// Latency is slept before the response headers are written.
	Latency time.Duration
	// Hold, if non-nil, pauses the stream after HoldAfter deltas until the
	// channel is closed (or the client goes away). It lets tests act while
	// pi is provably mid-stream (steer, abort, get_state) without timing.
	Hold      <-chan struct{}
	HoldAfter int
	// Finish overrides finish_reason ("stop", or "tool_calls" with Calls).
	Finish string
	// Usage overrides the usage chunk; nil estimates 4 bytes per token.
	Usage *Usage

	// Status, when non-zero, answers with this HTTP status and an OpenAI
	// error body carrying ErrorMessage instead of a stream.
	Status       int
	ErrorMessage string
	ErrorType    string
	// SDKRetry lets the OpenAI SDK inside pi retry the error by itself. By
	// default errors carry "x-should-retry: false" so that only pi's own
	// agent-level retry (auto_retry_start/end) happens and each error
	// consumes exactly one scripted reply.
	SDKRetry bool

	// DropAfter, when Drop is set, aborts the connection after this many
	// delta chunks have been written (0: right after the headers).
	Drop      bool
	DropAfter int
}

// Call is one tool call in a Reply. Arguments is JSON text.
type Call struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is the OpenAI usage object sent in the final stream chunk.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CachedTokens     int `json:"-"`
}

// MarshalJSON adds prompt_tokens_details when CachedTokens is set, which pi
// reports as cacheRead.
func (u Usage) MarshalJSON() ([]byte, error) {
	type plain Usage
	v := struct {
		plain
		Details *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details,omitempty"`
	}{plain: plain(u)}
	if u.CachedTokens > 0 {
		v.Details = &struct {
			CachedTokens int `json:"cached_tokens"`
		}{u.CachedTokens}
	}
	return json.Marshal(v)
}

// Text returns a reply that streams s.
func Text(s string) Reply { return Reply{Text: s} }

// Think returns a reply that streams thinking as reasoning_content, then text.
func Think(thinking, text string) Reply { return Reply{Thinking: thinking, Text: text} }

// Tools returns a reply that asks pi to run the given tool calls.
func Tools(calls ...Call) Reply { return Reply{Calls: calls} }

// NewCall builds a tool call; args is marshalled to JSON (a string or
// []byte is used as-is). The id is assigned when the reply is served.
func NewCall(name string, args any) Call {
	var js string
	switch a := args.(type) {
	case string:
		js = a
	case []byte:
		js = string(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			panic(fmt.Sprintf("fakellm.NewCall(%q): %v", name, err))
		}
		js = string(b)
	}
	return Call{Name: name, Arguments: js}
}

// Bash is a call of pi's built-in bash tool.
func Bash(command string) Call {
	return NewCall("bash", map[string]string{"command": command})
}

// Error returns a reply that fails with the given HTTP status. pi's agent
// retries 429 and 5xx statuses (see AgentSession._isRetryableError).
func Error(status int, message string) Reply {
	return Reply{Status: status, ErrorMessage: message}
}

// OverflowMessage is the context overflow error text. It matches pi-ai's
// overflow pattern /maximum context length is \d+ tokens/ once the OpenAI SDK
// prefixes the status ("400 This model's…").
const OverflowMessage = "This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens."

// Overflow returns a 400 context-length error that pi classifies as context
// overflow: it auto-compacts and retries the turn instead of retrying the
// request.
func Overflow() Reply {
	return Reply{Status: 400, ErrorMessage: OverflowMessage, ErrorType: "invalid_request_error"}
}

// Drop returns a reply that streams text but aborts the TCP connection after
// afterChunks deltas, as a crashing upstream would.
func Drop(text string, afterChunks int) Reply {
	return Reply{Text: text, Drop: true, DropAfter: afterChunks}
}

// WithChunks sets the number of deltas.
func (r Reply) WithChunks(n int) Reply { r.Chunks = n; return r }

// WithDelay sets the pause before each delta.
func (r Reply) WithDelay(d time.Duration) Reply { r.Delay = d; return r }

// WithHold pauses the stream after n deltas until hold is closed.
func (r Reply) WithHold(hold <-chan struct{}, n int) Reply {
	r.Hold, r.HoldAfter = hold, n
	return r
}

// WithUsage sets the reported token usage, e.g. to push pi over its
// compaction threshold.
func (r Reply) WithUsage(prompt, completion int) Reply {
	r.Usage = &Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return r
}

// Times returns n copies of r, for "fail N times then succeed" scripts.
func Times(n int, r Reply) []Reply {
	out := make([]Reply, n)
	for i := range out {
		out[i] = r
	}
	return out
}
