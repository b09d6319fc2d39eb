package app

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"piweb/internal/broker"
	"piweb/internal/live"
	"piweb/internal/testkit"
)

// notices is a fleet that tells of one push by "box", then waits for
// its context to end.
type notices struct{ ended chan struct{} }

func (n notices) Listen(ctx context.Context, _ time.Duration, changed func(string)) {
	changed("box")
	<-ctx.Done()
	close(n.ended)
}

// TestFleetRelayAndClose: the App relays the fleet's pushes to the pages
// as fleet_changed on the index topic, and Close ends the listening and
// every goroutine New started, the catalog it opened included.
func TestFleetRelayAndClose(t *testing.T) {
	before := runtime.NumGoroutine()
	n := notices{ended: make(chan struct{})}
	a := New(Config{AgentDir: t.TempDir(), Fleet: n, Log: testkit.Log(t)})
	heard := func() bool {
		found := false
		a.Events.Retained(live.IndexTopic, func(e broker.Event) bool {
			found = found || strings.Contains(string(e.Raw), `{"type":"fleet_changed","machine":"box"}`)
			return true
		})
		return found
	}
	testkit.Eventually(t, heard, 5*time.Second, "fleet_changed on the index topic")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	<-n.ended
	testkit.Eventually(t, func() bool { return runtime.NumGoroutine() <= before }, 5*time.Second,
		"the goroutine count before New")
}
