package fakellm

import "time"

// usageFor returns the reply's usage, or a 4-bytes-per-token estimate so that
// pi's context usage and cost figures move deterministically.
func usageFor(req *Request, r Reply) *Usage {
	if r.Usage != nil {
		u := *r.Usage
		if u.TotalTokens == 0 {
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
		return &u
	}
	out := len(r.Text) + len(r.Thinking)
	for _, c := range r.Calls {
		out += len(c.Name) + len(c.Arguments)
	}
	p, c := req.promptTokens(), out/4+1
	return &Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
}

type completionMessage struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

type completionChoice struct {
	Index        int               `json:"index"`
	Message      completionMessage `json:"message"`
	FinishReason string            `json:"finish_reason"`
}

// body is an OpenAI chat completion answer: a whole chat.completion
// (C a completionChoice) or one chat.completion.chunk of a stream (C a
// chunkChoice).
type body[C any] struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []C    `json:"choices"`
	Usage   *Usage `json:"usage,omitempty"`
}

// newBody is an answer of kind object to the request id, created now.
func newBody[C any](id, object, model string) body[C] {
	return body[C]{ID: id, Object: object, Created: time.Now().Unix(), Model: model}
}

type completionBody = body[completionChoice]

// completion builds the non-streaming chat.completion body. pi never asks
// for one, but other OpenAI clients (curl, scripts) do.
func completion(id, model string, r Reply, usage *Usage) completionBody {
	msg := completionMessage{Role: "assistant", ReasoningContent: r.Thinking}
	if r.Text != "" || len(r.Calls) == 0 {
		text := r.Text
		msg.Content = &text
	}
	for _, c := range r.Calls {
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Type: "function",
			Function: FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	a := newBody[completionChoice](id, "chat.completion", model)
	a.Choices, a.Usage = []completionChoice{{Message: msg, FinishReason: finishReason(r)}}, usage
	return a
}
