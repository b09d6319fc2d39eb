package agent

import (
	"testing"
	"time"

	"piweb/internal/pitest"
)

// TestLiveDialogOwnTimeout: a dialog the extension asked with a timeout
// is expired by piweb when pi gives up on it (pi says nothing on RPC), so
// browsers drop its card and the worker is no longer held busy by it.
func TestLiveDialogOwnTimeout(t *testing.T) {
	r := newRig(t)
	ext := pitest.Extension(t, "timed")
	s := r.supervisor(func(c *Config) {
		c.Base.Extensions = []string{ext}
		c.UITimeout = time.Minute
	})
	ctx := ctxT(t)
	w, err := s.StartNew(ctx, r.work)
	if err != nil {
		t.Fatal(err)
	}
	rec := watch(t, w.Hub())
	start := time.Now()
	if err := w.Prompt(ctx, "/timed 300", PromptOptions{}); err != nil {
		t.Fatal(err)
	}
	i := rec.waitType(t, 0, EvExtensionUIRequest)
	rec.waitType(t, i, EvExtensionUITimeout) // within 20 s, not piweb's minute
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("expired after %v, not at the extension's 300 ms", d)
	}
	// pi's own timer answered first; piweb's is the same length.
	n := rec.wait(t, i, func(e Event) bool { return fieldString(e.Raw, "method") == "notify" })
	if got := fieldString(rec.snapshot()[n].Raw, "message"); got != "timed ok=false" {
		t.Errorf("extension saw %q", got)
	}
	if w.busy(time.Now()) {
		t.Error("worker still busy with the expired dialog")
	}
}
