package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"piweb/internal/access"
	"piweb/internal/fleet"
)

// TestForwardSlowPeer: a machine that does not answer within the bound
// (Timeouts.PeerAnswer) is unavailable, said so, while a stream whose
// headers it sent at once lives on past the bound, and a pi command (pi
// answers it when done: a compaction, a bash command) waits as long as
// it takes.
func TestForwardSlowPeer(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/stream" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		<-release
		fmt.Fprint(w, "data: late\n\n")
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	near := newRig(t, Options{Fleet: machineFleet("near"), FleetKey: access.NewFleetKey(testFleetKey),
		Peers: peerTable{"far": {Advertise: slow.URL, Online: true}}, Timeouts: Timeouts{PeerAnswer: 100 * time.Millisecond}})

	stream, err := http.Get(near.ts.URL + "/api/stream?machine=far")
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("the far stream: %v %v", stream, err)
	}
	defer stream.Body.Close()
	command := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", near.ts.URL+"/api/sessions/x/commands?machine=far", strings.NewReader(`{"type":"compact"}`))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			command <- 0
			return
		}
		res.Body.Close()
		command <- res.StatusCode
	}()

	got := near.json("GET", "/api/sessions/x/files?machine=far", nil, 502) // takes the bound
	msg, _ := got["error"].(map[string]any)["message"].(string)
	if errCode(t, got) != "unavailable" || !strings.Contains(msg, "does not answer in time") {
		t.Errorf("a slow machine: %v", got)
	}
	close(release)
	if line, err := bufio.NewReader(stream.Body).ReadString('\n'); err != nil || line != "data: late\n" {
		t.Errorf("the far stream after the bound: %q, %v", line, err)
	}
	if code := <-command; code != 200 {
		t.Errorf("a pi command answered after the bound: status %d, want 200", code)
	}
}

// TestForwardProofWindow: the owner refuses a proof made outside its
// time window (a replayed request, or a clock off by minutes) with its
// own time, and the piweb that forwarded says the clocks differ.
func TestForwardProofWindow(t *testing.T) {
	m := newTwoMachines(t)
	files := "/api/sessions/" + m.farID + "/files"
	key := access.NewFleetKey(testFleetKey)
	for _, c := range []struct {
		what   string
		at     time.Duration
		status int
	}{
		{"made now", 0, 200},
		{"made 4 min ago", -4 * time.Minute, 200},
		{"replayed 6 min later", -6 * time.Minute, 401},
		{"from a clock 6 min ahead", 6 * time.Minute, 401},
	} {
		res := m.far.do("GET", files, nil, fleetKeyHeader, key.Proof("far", time.Now().Add(c.at)), fleetMachineHeader, "far")
		res.Body.Close()
		if res.StatusCode != c.status || (c.status == 401) != (res.Header.Get(fleetClockHeader) != "") {
			t.Errorf("a proof %s: status %d, clock %q; want %d", c.what, res.StatusCode, res.Header.Get(fleetClockHeader), c.status)
		}
	}
	if log := m.farLog.String(); !strings.Contains(log, "proof out of its time window") {
		t.Errorf("the far log does not say why it refused:\n%s", log)
	}

	// A machine whose clock is off: the forwarding piweb says so.
	off := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(fleetClockHeader, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
		http.Error(w, `{"error":{"code":"unauthorized","message":"out of date"}}`, http.StatusUnauthorized)
	}))
	t.Cleanup(off.Close)
	m.peers["far"] = fleet.Peer{Name: "far", Advertise: off.URL, Online: true}
	got := m.near.json("GET", files+"?machine=far", nil, 502)
	msg, _ := got["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, "clocks differ") {
		t.Errorf("a machine with its clock off: %v", got)
	}
}

// countedPeers counts the fleet database's lookups of a machine.
type countedPeers struct {
	peerTable
	mu sync.Mutex
	n  int
}

func (c *countedPeers) Peer(ctx context.Context, name string, now time.Time) (fleet.Peer, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.peerTable.Peer(ctx, name, now)
}

func (c *countedPeers) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// TestForwardLooksUpOnce: the requests of a page driving another machine
// read its address from the fleet database once, not once each; a
// request it did not answer has it read again.
func TestForwardLooksUpOnce(t *testing.T) {
	m := newTwoMachines(t)
	peers := &countedPeers{peerTable: m.peers}
	near := newRig(t, Options{Fleet: machineFleet("near"), FleetKey: access.NewFleetKey(testFleetKey), Peers: peers})
	files := "/api/sessions/" + m.farID + "/files?machine=far"
	for range 5 {
		near.json("GET", files, nil, 200)
	}
	if n := peers.count(); n != 1 {
		t.Errorf("5 requests to one machine looked it up %d times, want 1", n)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	m.peers["far"] = fleet.Peer{Name: "far", Advertise: gone.URL, Online: true}
	near.srv.peerCache.forget("far") // as if its entry were old
	near.json("GET", files, nil, 502)
	m.peers["far"] = fleet.Peer{Name: "far", Advertise: m.farURL, Online: true} // it moved
	near.json("GET", files, nil, 200)
	if n := peers.count(); n != 3 {
		t.Errorf("%d lookups, want 3: a machine that did not answer is looked up again", n)
	}
}
