package corpus

import (
	"fmt"
	"math"
	"time"
)

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type              string `json:"type"`
	Thinking          string `json:"thinking"`
	ThinkingSignature string `json:"thinkingSignature"`
}

type toolCall struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

type usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        cost `json:"cost"`
}

type userMsg struct {
	Role      string      `json:"role"`
	Content   []textBlock `json:"content"`
	Timestamp int64       `json:"timestamp"`
}

type assistantMsg struct {
	Role       string `json:"role"`
	Content    []any  `json:"content"`
	API        string `json:"api"`
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Usage      usage  `json:"usage"`
	StopReason string `json:"stopReason"`
	Timestamp  int64  `json:"timestamp"`
	ResponseID string `json:"responseId,omitempty"`
}

type toolResultMsg struct {
	Role       string      `json:"role"`
	ToolCallID string      `json:"toolCallId"`
	ToolName   string      `json:"toolName"`
	Content    []textBlock `json:"content"`
	IsError    bool        `json:"isError"`
	Timestamp  int64       `json:"timestamp"`
}

type messageEntry struct {
	base
	Message any `json:"message"`
}

// message writes a message entry; the message timestamp is a little before
// the entry's, as in pi.
func (g *gen) message(m any) {
	g.line(messageEntry{g.next("message"), m})
}

func (g *gen) ms() int64 { return g.now.UnixMilli() - int64(g.r.IntN(5)) }

// turn writes a user prompt, an assistant reply calling a tool, the tool
// result, and the assistant's answer.
func (g *gen) turn(resultSize int) {
	g.tick(2 * time.Minute)
	g.message(userMsg{"user", []textBlock{{"text", prose(g.r, 40+g.r.IntN(400))}}, g.now.UnixMilli()})
	g.users = append(g.users, g.leaf)
	call := fmt.Sprintf("toolu_%012x", g.r.Uint64()&0xffffffffffff)
	path := fmt.Sprintf("src/%s/%s.go", word(g.r), word(g.r))
	content := []any{}
	if g.r.IntN(2) == 0 {
		content = append(content, thinkingBlock{"thinking", prose(g.r, 100+g.r.IntN(300)), ""})
	}
	content = append(content, textBlock{"text", prose(g.r, 30+g.r.IntN(200))},
		toolCall{"toolCall", call, "read", map[string]any{"path": path}})
	g.assistant(content, "toolUse")
	g.message(toolResultMsg{"toolResult", call, "read",
		[]textBlock{{"text", codeText(g.r, resultSize/2+g.r.IntN(resultSize))}}, false, g.ms()})
	g.assistant([]any{textBlock{"text", prose(g.r, 80+g.r.IntN(600))}}, "stop")
}

func (g *gen) assistant(content []any, stop string) {
	in, out := 500+g.r.IntN(40000), 20+g.r.IntN(2000)
	read := g.r.IntN(in)
	c := cost{Input: price(in, 3), Output: price(out, 15), CacheRead: price(read, 0.3)}
	c.Total = c.Input + c.Output + c.CacheRead
	g.message(assistantMsg{"assistant", content, g.model.api, g.model.provider, g.model.id,
		usage{in, out, read, 0, in + out + read, c}, stop, g.ms(), ""})
}

// price returns the cost of n tokens at perM dollars per million, rounded
// the way float sums come out in real files.
func price(n int, perM float64) float64 {
	return math.Round(float64(n)*perM) / 1e6
}
