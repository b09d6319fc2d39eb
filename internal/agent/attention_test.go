package agent

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestAttentionOf(t *testing.T) {
	for _, c := range []struct{ ev, kind, title string }{
		{`{"type":"agent_end","messages":[{"role":"user"},{"role":"assistant","stopReason":"stop"}]}`, "done", ""},
		{`{"type":"agent_end","messages":[{"role":"assistant","stopReason":"error","errorMessage":"401"},{"role":"toolResult"}]}`, "failed", "401"},
		{`{"type":"agent_end","messages":[]}`, "done", ""},
		{`{"type":"agent_end","messages":[{"role":"assistant","stopReason":"error","errorMessage":"503"}],"willRetry":true}`, "", ""},
		{`{"type":"agent_end","messages":[{"role":"assistant","stopReason":"error","errorMessage":"503"}],"willRetry":false}`, "failed", "503"},
		{`{"type":"extension_ui_request","id":"1","method":"confirm","title":"Delete?"}`, "waiting", "Delete?"},
		{`{"type":"extension_ui_request","id":"1","method":"notify","message":"hi"}`, "", ""},
		{`{"type":"piweb_ui_answered","id":"1"}`, "resumed", ""},
		{`{"type":"message_update"}`, "", ""},
		{`not json`, "", ""},
	} {
		if k, ti := AttentionOf([]byte(c.ev)); k != c.kind || ti != c.title {
			t.Errorf("%s: %q %q, want %q %q", c.ev, k, ti, c.kind, c.title)
		}
	}
}

// TestWorkersTopicHoldsNotes is issue 21.6: the workers topic kept each
// whole event (an agent_end carries the run's messages) while the broker
// counted 25 bytes for it, so 1,000 events of 256 KiB kept 258 MiB. It
// carries a small projection now, and counts what that holds.
func TestWorkersTopicHoldsNotes(t *testing.T) {
	h := NewHub()
	big := strings.Repeat("x", 256<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 400 {
		raw := fmt.Sprintf(`{"type":"agent_end","messages":[{"role":"assistant","stopReason":"error","errorMessage":"%d %s"}]}`, i, big)
		h.Publish(Event{Type: EvAgentEnd, Raw: []byte(raw)})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// The session's own topic keeps its 8 MB of replay; the workers topic
	// must not keep 100 MB more.
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 40<<20 {
		t.Errorf("the heap grew by %d MiB for 400 events of 256 KiB", grew>>20)
	}
	events, bytes := h.b.RetainedBytes(WorkersTopic)
	if events != 400 || bytes < 400*(64+len("events")) || bytes > 400*1024 {
		t.Errorf("workers topic keeps %d events counted as %d bytes", events, bytes)
	}
	sub := h.b.NewSub()
	got, _, err := sub.Resume(WorkersTopic, 0)
	sub.Close()
	if err != nil || len(got) == 0 {
		t.Fatalf("replay %d, %v", len(got), err)
	}
	n, ok := got[len(got)-1].Value.(WorkerNote)
	if !ok || n.Type != EvAgentEnd || n.Attention != AttentionFailed || !strings.HasPrefix(n.Title, "399 xxx") || len(n.Title) > 200 {
		t.Errorf("last note %+v", n)
	}
}
