package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/fakellm"
)

func TestLiveToolRoundTrip(t *testing.T) {
	r := newRig(t)
	c, rec := r.start(nil)
	ctx := ctxT(t)
	r.llm.Enqueue(fakellm.Tools(fakellm.Bash("echo hello")), fakellm.Text("it said hello"))
	if err := c.Prompt(ctx, "run echo", nil, ""); err != nil {
		t.Fatal(err)
	}
	end := rec.waitType(t, 0, EvAgentEnd)
	evs := rec.snapshot()[:end+1]
	var sawTool, sawDelta bool
	for _, e := range evs {
		switch e.Type {
		case EvToolEnd:
			sawTool = strings.Contains(string(e.Raw), `hello\n`)
		case EvMessageUpdate:
			if d, ok := DeltaOf(e); ok && d.Type == "text_delta" {
				sawDelta = true
			}
		}
	}
	if !sawTool || !sawDelta {
		t.Errorf("tool result seen %v, text delta seen %v in %v", sawTool, sawDelta, types(evs))
	}
	reqs := r.llm.Requests()
	if len(reqs) != 2 || reqs[1].ToolResults()[0].Text() != "hello\n" {
		t.Fatalf("LLM requests: %d", len(reqs))
	}
	text, err := c.GetLastAssistantText(ctx)
	if err != nil || text != "it said hello" {
		t.Errorf("last text = %q, %v", text, err)
	}
	// An unknown command comes back without id and must still fail the call.
	_, err = c.Call(ctx, "frobnicate", nil)
	var ce *CommandError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "Unknown command") {
		t.Errorf("frobnicate: %v", err)
	}
}

func TestLiveCwdGone(t *testing.T) {
	r := newRig(t)
	gone := filepath.Join(t.TempDir(), "project")
	file := filepath.Join(r.sessions, "gone.jsonl")
	os.MkdirAll(r.sessions, 0o755)
	hdr := `{"type":"session","version":3,"id":"01a2363b-630c-72b5-aeec-3e7ae5168fd8","timestamp":"2026-12-02T10:00:00.000Z","cwd":"` + gone + `"}` + "\n"
	os.WriteFile(file, []byte(hdr), 0o644)
	o := r.opts()
	o.SessionFile = file
	_, _, err := Start(ctxT(t), o)
	var cg *CwdGoneError
	if !errors.As(err, &cg) {
		t.Fatalf("err = %v, want CwdGoneError", err)
	}
	if cg.Dir != gone || cg.Exit.Status != 1 || !strings.Contains(cg.Exit.Stderr, "Stored session working directory") {
		t.Errorf("got %+v / %+v", cg, cg.Exit)
	}
}

func TestLiveStartOptions(t *testing.T) {
	r := newRig(t)
	c, rec := r.start(func(o *Options) {
		o.Model = fakellm.Provider + "/" + fakellm.ThinkerID
		o.Thinking = "high"
		o.Tools = []string{"read", "bash"}
	})
	ctx := ctxT(t)
	st, err := c.GetState(ctx)
	if err != nil || st.ThinkingLevel != "high" || !strings.Contains(string(st.Model), fakellm.ThinkerID) {
		t.Fatalf("state: thinking %q model %s %v", st.ThinkingLevel, st.Model, err)
	}
	r.llm.Enqueue(fakellm.Think("hmm", "ok"))
	c.Prompt(ctx, "hi", nil, "")
	rec.waitType(t, 0, EvAgentEnd)
	if got := strings.Join(r.llm.LastRequest().ToolNames(), ","); got != "read,bash" {
		t.Errorf("tools sent to the LLM: %s", got)
	}
}
