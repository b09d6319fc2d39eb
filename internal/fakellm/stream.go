package fakellm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"piweb/internal/ctxwait"
)

// chunk is an OpenAI chat.completion.chunk.
type chunk = body[chunkChoice]

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// delta uses a map for the reasoning field because its name is configurable.
type delta map[string]any

type toolCallDelta struct {
	Index    int               `json:"index"`
	ID       string            `json:"id,omitempty"`
	Type     string            `json:"type,omitempty"`
	Function functionCallDelta `json:"function"`
}

type functionCallDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// errAborted reports that the client went away or the reply asked for a drop.
var errAborted = fmt.Errorf("fakellm: stream aborted")

// streamer writes one SSE response, flushing after every frame so pi sees
// each delta as soon as it is produced.
type streamer struct {
	ctx   context.Context
	w     http.ResponseWriter
	rc    *http.ResponseController
	base  chunk
	reply Reply
	sent  int // delta chunks written
	held  bool
}

func newStreamer(ctx context.Context, w http.ResponseWriter, id, model string, reply Reply) *streamer {
	return &streamer{
		ctx: ctx, w: w, rc: http.NewResponseController(w), reply: reply,
		base: newBody[chunkChoice](id, "chat.completion.chunk", model),
	}
}

func (s *streamer) header() error {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	s.w.WriteHeader(http.StatusOK)
	return s.rc.Flush()
}

func (s *streamer) frame(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode chunk: %w", err)
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return fmt.Errorf("write chunk: %w", err)
	}
	return s.rc.Flush()
}

// delta sleeps the reply's Delay, honours a scheduled drop, then writes d.
func (s *streamer) delta(d delta) error {
	if s.reply.Drop && s.sent >= s.reply.DropAfter {
		return errAborted
	}
	if err := s.hold(); err != nil {
		return err
	}
	if err := ctxwait.Sleep(s.ctx, s.reply.Delay); err != nil {
		return err
	}
	s.sent++
	c := s.base
	c.Choices = []chunkChoice{{Delta: d}}
	return s.frame(c)
}

// hold blocks once, when HoldAfter deltas have been sent, until Hold closes.
func (s *streamer) hold() error {
	if s.reply.Hold == nil || s.held || s.sent < s.reply.HoldAfter {
		return nil
	}
	s.held = true
	select {
	case <-s.reply.Hold:
		return nil
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

func (s *streamer) run(usage *Usage) error {
	if err := s.header(); err != nil {
		return err
	}
	first := s.base
	first.Choices = []chunkChoice{{Delta: delta{"role": "assistant", "content": ""}}}
	if err := s.frame(first); err != nil {
		return err
	}
	if err := s.parts(); err != nil {
		return err
	}
	if s.reply.Drop {
		return errAborted
	}
	return s.finish(usage)
}

func (s *streamer) parts() error {
	field := s.reply.ThinkingField
	if field == "" {
		field = "reasoning_content"
	}
	for _, p := range split(s.reply.Thinking, s.reply.Chunks, 8) {
		if err := s.delta(delta{field: p}); err != nil {
			return err
		}
	}
	for _, p := range split(s.reply.Text, s.reply.Chunks, 8) {
		if err := s.delta(delta{"content": p}); err != nil {
			return err
		}
	}
	for i, c := range s.reply.Calls {
		if err := s.call(i, c); err != nil {
			return err
		}
	}
	return nil
}

// call streams one tool call: id and name first, then argument fragments.
func (s *streamer) call(i int, c Call) error {
	head := toolCallDelta{Index: i, ID: c.ID, Type: "function", Function: functionCallDelta{Name: c.Name}}
	if err := s.delta(delta{"tool_calls": []toolCallDelta{head}}); err != nil {
		return err
	}
	for _, frag := range split(c.Arguments, s.reply.Chunks, 3) {
		d := toolCallDelta{Index: i, Function: functionCallDelta{Arguments: frag}}
		if err := s.delta(delta{"tool_calls": []toolCallDelta{d}}); err != nil {
			return err
		}
	}
	return nil
}

func (s *streamer) finish(usage *Usage) error {
	if err := s.hold(); err != nil {
		return err
	}
	reason := finishReason(s.reply)
	last := s.base
	last.Choices = []chunkChoice{{Delta: delta{}, FinishReason: &reason}}
	if err := s.frame(last); err != nil {
		return err
	}
	if usage != nil {
		u := s.base
		u.Choices = []chunkChoice{}
		u.Usage = usage
		if err := s.frame(u); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprint(s.w, "data: [DONE]\n\n"); err != nil {
		return fmt.Errorf("write done: %w", err)
	}
	return s.rc.Flush()
}

func finishReason(r Reply) string {
	switch {
	case r.Finish != "":
		return r.Finish
	case len(r.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// split cuts s into n pieces of roughly equal rune count (def pieces when n
// is 0, fewer for short strings). Empty s gives no pieces.
func split(s string, n, def int) []string {
	if s == "" {
		return nil
	}
	runes := utf8.RuneCountInString(s)
	if n <= 0 {
		n = min(def, max(1, runes/4))
	}
	n = min(n, runes)
	out := make([]string, 0, n)
	size := (runes + n - 1) / n
	var b strings.Builder
	count := 0
	for _, r := range s {
		b.WriteRune(r)
		count++
		if count == size {
			out = append(out, b.String())
			b.Reset()
			count = 0
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
