package web

import (
	"testing"

	"piweb/internal/fakellm"
)

// TestChatLive drives real pi through the browser: one server, one pi
// process per session, one Chromium for every step.
func TestChatLive(t *testing.T) {
	r := newChatRig(t)

	t.Run("tool call", func(t *testing.T) {
		r.llm.Enqueue(fakellm.Tools(fakellm.Bash("echo hello-from-tool")), fakellm.Text("All done with the tool."))
		r.startSession(t, "run a tool")
		r.waitText(t, "All done with the tool.")
		r.waitText(t, "hello-from-tool")
		r.waitIdle(t)
		r.llm.Enqueue(fakellm.Text("Second answer here."))
		r.send(t, "and again")
		r.waitText(t, "Second answer here.")
		r.waitIdle(t)
		if n := r.countText(t, "Second answer here."); n != 1 {
			t.Errorf("answer shown %d times", n)
		}
	})
}
