package fakellm

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// These tests run the real pinned pi against the fake; they are the proof
// that the fake speaks pi's protocol.

func TestPiPrintMode(t *testing.T) {
	e := newPiEnv(t)
	e.srv.Enqueue(Text("Scripted hello from the fake.").WithChunks(5))
	out, err := e.command(t, "-p", "hello").CombinedOutput()
	if err != nil {
		t.Fatalf("pi -p: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "Scripted hello from the fake." {
		t.Errorf("pi printed %q", got)
	}
	req := e.srv.LastRequest()
	checks := map[string]bool{
		"bearer key":    req.Header.Get("Authorization") == "Bearer "+APIKey,
		"stream":        req.Stream && req.IncludeUsage(),
		"model":         req.Model == ModelID,
		"system prompt": req.Messages[0].Role == "system" && req.SystemPrompt() != "",
		"user text":     req.LastUserText() == "hello",
		"bash tool":     slices.Contains(req.ToolNames(), "bash"),
		"max tokens":    req.MaxCompletionTokens == 4096,
		"no sdk retry":  req.Header.Get("x-stainless-retry-count") == "0",
	}
	for name, ok := range checks {
		if !ok {
			t.Errorf("request check %q failed; body: %.400s", name, req.Body)
		}
	}
}

func TestPiPrintDemoToolCall(t *testing.T) {
	e := newPiEnv(t)
	out, err := e.command(t, "--no-session", "-p", "run `echo demo-ok`").CombinedOutput()
	if err != nil {
		t.Fatalf("pi -p: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "demo-ok") || len(e.srv.Requests()) != 2 {
		t.Errorf("pi printed %q after %d requests", out, len(e.srv.Requests()))
	}
}

// TestPiRPC reuses one pi process for several scenarios to keep start-up
// cost (~1.5 s) down. Each step waits until pi is idle again.
func TestPiRPC(t *testing.T) {
	e := newPiEnv(t)
	ext, err := filepath.Abs("testdata/tree-goto.ts")
	if err != nil {
		t.Fatal(err)
	}
	p := e.startRPC(t, "-e", ext)
	p.call(map[string]any{"type": "get_state"})

	t.Run("tool round trip", func(t *testing.T) {
		p.t = t
		n := len(e.srv.Requests())
		e.srv.Enqueue(Tools(Bash("echo hi")), Text("The command printed hi."))
		evs := p.prompt("run echo hi", nil)
		end := find(evs, "tool_execution_end")
		if end == nil || end["isError"] != false || end.str("toolName") != "bash" {
			t.Fatalf("tool_execution_end = %v; events %v", end, types(evs))
		}
		reqs := e.srv.Requests()[n:]
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		res := reqs[1].ToolResults()
		if len(res) != 1 || strings.TrimSpace(res[0].Text()) != "hi" || res[0].ToolCallID != fmt.Sprintf("call_%d_0", n+1) {
			t.Errorf("tool results sent back = %+v", res)
		}
		asst := reqs[1].Messages[len(reqs[1].Messages)-2]
		if asst.Role != "assistant" || len(asst.ToolCalls) != 1 || asst.ToolCalls[0].Function.Arguments != `{"command":"echo hi"}` {
			t.Errorf("replayed assistant message = %+v", asst)
		}
		last := evs[len(evs)-1]
		if lastAssistantText(last) != "The command printed hi." {
			t.Errorf("final answer = %q", lastAssistantText(last))
		}
		stats := p.call(map[string]any{"type": "get_session_stats"})["data"].(map[string]any)
		if cost, _ := stats["cost"].(float64); cost <= 0 {
			t.Errorf("session cost = %v, want > 0 (models.json declares costs)", stats["cost"])
		}
	})

	t.Run("5xx then success retries", func(t *testing.T) {
		p.t = t
		e.srv.Enqueue(Error(503, "upstream overloaded"), Text("Recovered."))
		evs := p.prompt("flaky please", func(ev event) bool { return ev.typ() == "auto_retry_end" })
		start := find(evs, "auto_retry_start")
		if start == nil || !providerError(start.str("errorMessage"), 503, "upstream overloaded") {
			t.Fatalf("auto_retry_start = %v; events %v", start, types(evs))
		}
		if end := evs[len(evs)-1]; end["success"] != true {
			t.Errorf("auto_retry_end = %v", end)
		}
		p.until(5*time.Second, func(ev event) bool { return ev.typ() == "agent_end" })
	})

	t.Run("5xx beyond maxRetries gives up", func(t *testing.T) {
		p.t = t
		e.srv.Enqueue(Times(3, Error(500, "still broken"))...) // WriteSettings: maxRetries 2
		evs := p.prompt("broken please", func(ev event) bool { return ev.typ() == "auto_retry_end" })
		if end := evs[len(evs)-1]; end["success"] != false || !providerError(end.str("finalError"), 500, "still broken") {
			t.Errorf("auto_retry_end = %v", end)
		}
		if n := e.srv.Pending(); n != 0 {
			t.Errorf("%d scripted errors left unserved", n)
		}
	})

	t.Run("connection drop mid-stream is retried", func(t *testing.T) {
		p.t = t
		e.srv.Enqueue(Drop("This answer will be cut off in the middle.", 2).WithChunks(6), Text("Second try."))
		evs := p.prompt("drop please", func(ev event) bool { return ev.typ() == "auto_retry_end" })
		start := find(evs, "auto_retry_start")
		if start == nil {
			t.Fatalf("no auto_retry_start; events %v", types(evs))
		}
		t.Logf("pi's error for a dropped stream: %q", start.str("errorMessage"))
		p.until(5*time.Second, func(ev event) bool { return ev.typ() == "agent_end" })
	})

	t.Run("manual compact uses canned summary", func(t *testing.T) {
		p.t = t
		resp := p.call(map[string]any{"type": "compact"})
		data, _ := resp["data"].(map[string]any)
		if s, _ := data["summary"].(string); !strings.HasPrefix(s, DefaultSummary) {
			t.Errorf("compact summary = %q", s)
		}
		if k := e.srv.LastRequest().Kind(); k != KindCompaction {
			t.Errorf("last request kind = %v", k)
		}
		if c := lastEntry(e.sessionEntries(t), "compaction"); c == nil || !strings.HasPrefix(c.str("summary"), DefaultSummary) {
			t.Errorf("session compaction entry = %v", c)
		}
	})

	t.Run("context overflow triggers compaction and retry", func(t *testing.T) {
		p.t = t
		e.srv.Enqueue(Overflow(), Text("Answer after overflow recovery."))
		evs := p.prompt("this overflows", func(ev event) bool {
			return ev.typ() == "agent_end" && lastAssistantText(ev) == "Answer after overflow recovery."
		})
		ce := find(evs, "compaction_end")
		if ce == nil || ce.str("reason") != "overflow" || ce["willRetry"] != true {
			t.Fatalf("compaction_end = %v; events %v", ce, types(evs))
		}
		entries := e.sessionEntries(t)
		if c := lastEntry(entries, "compaction"); c == nil || !strings.HasPrefix(c.str("summary"), DefaultSummary) {
			t.Errorf("session compaction entry = %v", c)
		}
	})

	t.Run("reported usage over threshold triggers compaction", func(t *testing.T) {
		p.t = t
		// fake-model: contextWindow 128000 − reserveTokens 16384 = 111616.
		e.srv.Enqueue(Text("A very expensive answer.").WithUsage(120000, 10))
		p.prompt("expensive", nil)
		evs := p.until(10*time.Second, func(ev event) bool { return ev.typ() == "compaction_end" })
		if ce := evs[len(evs)-1]; ce.str("reason") != "threshold" || ce["result"] == nil {
			t.Errorf("compaction_end = %v", ce)
		}
	})

	t.Run("thinking deltas", func(t *testing.T) {
		p.t = t
		p.call(map[string]any{"type": "set_model", "provider": Provider, "modelId": ThinkerID})
		// pi 1.x keeps the session's level ("off" here) across set_model;
		// 0.73 switched a reasoning model to medium.
		p.call(map[string]any{"type": "set_thinking_level", "level": "medium"})
		e.srv.Enqueue(Think("Let me ponder this.", "Pondered.").WithChunks(3))
		evs := p.prompt("think hard", nil)
		var deltas []string
		for _, ev := range evs {
			if ev.str("assistantMessageEvent", "type") == "thinking_delta" {
				deltas = append(deltas, ev.str("assistantMessageEvent", "delta"))
			}
		}
		if strings.Join(deltas, "") != "Let me ponder this." || len(deltas) != 3 {
			t.Errorf("thinking deltas = %q", deltas)
		}
		msg := find(evs, "turn_end")["message"].(map[string]any)
		block := msg["content"].([]any)[0].(map[string]any)
		if block["type"] != "thinking" || block["thinkingSignature"] != "reasoning_content" {
			t.Errorf("first content block = %v", block)
		}
		if r := e.srv.LastRequest(); r.ReasoningEffort != "medium" || r.Model != ThinkerID {
			t.Errorf("request model %q reasoning_effort %q", r.Model, r.ReasoningEffort)
		}
	})

	t.Run("abort while held mid-stream", func(t *testing.T) {
		p.t = t
		hold := make(chan struct{})
		defer close(hold)
		e.srv.Enqueue(Text("first part, then more").WithChunks(4).WithHold(hold, 1))
		p.send(map[string]any{"type": "prompt", "message": "go slow"})
		p.until(10*time.Second, func(ev event) bool { return ev.str("assistantMessageEvent", "type") == "text_delta" })
		state := p.call(map[string]any{"type": "get_state"})["data"].(map[string]any)
		if state["isStreaming"] != true {
			t.Errorf("isStreaming = %v while held", state["isStreaming"])
		}
		p.send(map[string]any{"type": "abort"})
		evs := p.until(10*time.Second, func(ev event) bool { return ev.typ() == "agent_end" })
		if me := find(evs, "message_end"); me.str("message", "stopReason") != "aborted" {
			t.Errorf("message_end = %v", me)
		}
	})

	t.Run("tree navigation branch summary", func(t *testing.T) {
		p.t = t
		forks := p.call(map[string]any{"type": "get_fork_messages"})["data"].(map[string]any)["messages"].([]any)
		first := forks[0].(map[string]any)["entryId"].(string)
		p.call(map[string]any{"type": "prompt", "message": "/tree-goto " + first + " summarize"})
		if k := e.srv.LastRequest().Kind(); k != KindBranchSummary {
			t.Fatalf("last request kind = %v", k)
		}
		bs := lastEntry(e.sessionEntries(t), "branch_summary")
		if bs == nil || !strings.Contains(bs.str("summary"), DefaultSummary) {
			t.Errorf("branch_summary entry = %v", bs)
		}
	})
}

// lastAssistantText returns the text of the last assistant message in an
// agent_end event.
func lastAssistantText(ev event) string {
	msgs, _ := ev["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != "assistant" {
			continue
		}
		var b strings.Builder
		content, _ := m["content"].([]any)
		for _, c := range content {
			if c, _ := c.(map[string]any); c["type"] == "text" {
				b.WriteString(c["text"].(string))
			}
		}
		return b.String()
	}
	return ""
}

func lastEntry(entries []event, typ string) event {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].typ() == typ {
			return entries[i]
		}
	}
	return nil
}
