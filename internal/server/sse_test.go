package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"piweb/internal/app"
	"piweb/internal/client"
	"piweb/internal/live"
	"piweb/internal/testkit"
)

type sseEvent struct {
	id   string
	data map[string]any
}

// listen reads an event stream the client opened into a channel (a
// heartbeat as {"type":"ping"}) until the stream ends with its context.
// Used as listen(t)(r.api().IndexEvents(ctx, "")).
func listen(t testing.TB) func(*client.Events, error) <-chan sseEvent {
	return func(ev *client.Events, err error) <-chan sseEvent {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ch := make(chan sseEvent, 4096)
		go func() {
			defer close(ch)
			defer ev.Close()
			for {
				e, err := ev.Next()
				if err != nil {
					return
				}
				out := sseEvent{id: e.ID, data: map[string]any{"type": "ping"}}
				if !e.Ping() {
					out.data = nil
					json.Unmarshal(e.Data, &out.data)
				}
				ch <- out
			}
		}()
		return ch
	}
}

// next waits for the next event that is not a ping.
func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	return testkit.Await(t, ch, 10*time.Second, "an event", func(ev sseEvent) bool { return ev.data["type"] != "ping" })
}

func TestSSEResume(t *testing.T) {
	r := newRig(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	ch := listen(t)(r.api().IndexEvents(ctx, ""))
	if ev := next(t, ch); ev.data["type"] != "hello" || ev.id != "" {
		t.Fatalf("first event %+v", ev)
	}
	for i := range 3 {
		r.srv.live.PublishJSON(live.IndexTopic, map[string]any{"type": "test", "n": i})
	}
	var last string
	for i := range 3 {
		ev := next(t, ch)
		if ev.data["n"] != float64(i) || ev.id == "" {
			t.Fatalf("event %d: %+v", i, ev)
		}
		last = ev.id
	}
	cancel()
	for i := 3; i < 6; i++ {
		r.srv.live.PublishJSON(live.IndexTopic, map[string]any{"type": "test", "n": i})
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	ch2 := listen(t)(r.api().IndexEvents(ctx2, last))
	next(t, ch2) // hello
	for i := 3; i < 6; i++ {
		if ev := next(t, ch2); ev.data["n"] != float64(i) {
			t.Fatalf("resumed event: %+v, want n=%d", ev, i)
		}
	}
	// An id from another run (or garbage) gets a reset.
	for _, id := range []string{"1", "junk"} {
		ch3 := listen(t)(r.api().IndexEvents(ctx2, id))
		next(t, ch3)
		if ev := next(t, ch3); ev.data["type"] != "reset" {
			t.Errorf("Last-Event-ID %s: %+v, want reset", id, ev)
		}
	}
}

func TestSSEHeartbeat(t *testing.T) {
	r := newRig(t, Options{}, app.Config{Heartbeat: 20 * time.Millisecond})
	ctx := t.Context()
	ch := listen(t)(r.api().IndexEvents(ctx, ""))
	testkit.Await(t, ch, 5*time.Second, "heartbeat", func(ev sseEvent) bool { return ev.data["type"] == "ping" })
}

// TestSessionAppend: a line another process appends shows up on the
// session's stream as entries_appended, unchanged.
func TestSessionAppend(t *testing.T) {
	r := newRig(t, Options{})
	s := r.item("Dark theme")
	ctx := t.Context()
	ch := listen(t)(r.api().SessionEvents(ctx, s.ID, ""))
	hello := next(t, ch)
	if hello.data["type"] != "hello" || hello.data["leaf"] == nil {
		t.Fatalf("hello %+v", hello)
	}
	line := fmt.Sprintf(`{"type":"session_info","id":"abcd1234","parentId":%q,"timestamp":"2026-01-01T00:00:00.000Z","name":"From a terminal"}`, hello.data["leaf"])
	testkit.AppendFile(t, s.Path, line+"\n")
	r.cat.Refresh(s.Path)
	ev := next(t, ch)
	if ev.data["type"] != "entries_appended" || ev.data["leaf"] != "abcd1234" {
		t.Fatalf("event %+v", ev)
	}
	got, _ := json.Marshal(ev.data["entries"].([]any)[0])
	var want any
	json.Unmarshal([]byte(line), &want)
	wantB, _ := json.Marshal(want)
	if string(got) != string(wantB) {
		t.Errorf("entry %s, want %s", got, wantB)
	}
}

// TestSSEManyClients: 100 readers get every event in order while slow
// clients (that never read) and clients that vanish mid-stream come and
// go; afterwards no goroutine is left behind.
func TestSSEManyClients(t *testing.T) {
	r := newRig(t, Options{}, app.Config{EventQueue: 64, WriteTimeout: 2 * time.Second}) // so that the clients that never read are cut off soon
	before := runtime.NumGoroutine()

	const readers, events = 100, 300
	payload := strings.Repeat("x", 2<<10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	ready := make(chan struct{}, readers)
	var reconnects atomic.Int64
	for i := range readers {
		ch := listen(t)(r.api().IndexEvents(ctx, ""))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-ch // hello
			ready <- struct{}{}
			last := ""
			// One deadline for the whole run: pings every few seconds must
			// not keep a stalled reader waiting for ever (CI hung 26 min).
			stall := time.After(60 * time.Second)
			for n := 0; n < events; {
				select {
				case ev, open := <-ch:
					if !open {
						// Cut off as too slow: resume like EventSource does.
						// Cut off before its first event, it asks for
						// everything still kept ("0"); without an id it
						// would wait for ever for the events it missed.
						reconnects.Add(1)
						from := last
						if from == "" {
							from = "0"
						}
						ch = listen(t)(r.api().IndexEvents(ctx, from))
						<-ch // hello
						continue
					}
					if ev.data["type"] == "ping" {
						continue
					}
					if ev.data["n"] != float64(n) {
						errs <- fmt.Errorf("reader %d: got %v, want %d", i, ev.data["n"], n)
						return
					}
					last = ev.id
					n++
				case <-stall:
					errs <- fmt.Errorf("reader %d stalled at %d", i, n)
					return
				}
			}
		}()
	}
	for range readers {
		<-ready
	}
	// Slow clients: connect and never read.
	var slow []net.Conn
	for range 5 {
		c, err := net.Dial("tcp", r.ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		slow = append(slow, c)
	}
	// Vanishing clients: read a little, then drop the connection.
	for range 10 {
		vctx, vcancel := context.WithCancel(ctx)
		vch := listen(t)(r.api().IndexEvents(vctx, ""))
		go func() { <-vch; vcancel() }()
	}
	start := time.Now()
	for n := range events {
		r.srv.live.PublishJSON(live.IndexTopic, map[string]any{"type": "test", "n": n, "pad": payload})
		if n%50 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d readers × %d events of 2 KiB in %v, %d resumes after a cut-off", readers, events, time.Since(start), reconnects.Load())
	cancel()
	for _, c := range slow {
		c.Close()
	}
	r.ts.Client().CloseIdleConnections() // keep-alive readers are not leaks
	// A stream's goroutines end and its subscription is dropped as its
	// handler returns, not in one step: both are waited for.
	testkit.Eventually(t, func() error {
		if n := runtime.NumGoroutine(); n > before+2 {
			buf := make([]byte, 1<<20)
			return fmt.Errorf("goroutines %d, before %d:\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
		if n := r.srv.app.Events.Subscribers(live.IndexTopic); n != 0 {
			return fmt.Errorf("%d subscribers left", n)
		}
		return nil
	}, 10*time.Second, "every stream's goroutines and subscription to end")
}

// firstLook reads a files topic's first event after its hello: the
// poller's first look after the subscription, a change of the followed
// path itself; a change made after it is published.
func firstLook(t *testing.T, ch <-chan sseEvent, path string) {
	t.Helper()
	if ev := next(t, ch); ev.data["type"] != "file_changed" || ev.data["path"] != path {
		t.Fatalf("first look: event %+v, want file_changed of %q", ev, path)
	}
}

func TestFileEvents(t *testing.T) {
	r := newRig(t, Options{}, app.Config{FilesPoll: 20 * time.Millisecond})
	s := r.item("Dark theme")
	ctx := t.Context()
	ch := listen(t)(r.api().FileEvents(ctx, s.ID, "src", ""))
	next(t, ch) // hello
	firstLook(t, ch, "src")
	os.WriteFile(s.Cwd+"/src/due.js", []byte("// changed\n"), 0o644)
	if ev := next(t, ch); ev.data["type"] != "file_changed" || ev.data["path"] != "src/due.js" {
		t.Errorf("event %+v", ev)
	}
	_, err := r.api().FileEvents(ctx, s.ID, "../..", "")
	wantErr(t, "watching outside", err, 403, "")
}

// TestFileEventsOnePollerPerFolder is issue 17.11: two sessions of one
// folder following its src folder (each under its own topic) share one
// poller, and both hear of a change.
func TestFileEventsOnePollerPerFolder(t *testing.T) {
	r := newRig(t, Options{}, app.Config{FilesPoll: 20 * time.Millisecond})
	s := r.item("Dark theme")
	other := ""
	for _, o := range r.items() {
		if o.Cwd == s.Cwd && o.ID != s.ID {
			other = o.ID
		}
	}
	if other == "" {
		t.Fatal("no second session in the folder")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var chs []<-chan sseEvent
	for _, id := range []string{s.ID, other} {
		ch := listen(t)(r.api().FileEvents(ctx, id, "src", ""))
		next(t, ch) // hello
		firstLook(t, ch, "src")
		chs = append(chs, ch)
	}
	if n := r.srv.app.FilePollers.Count(); n != 1 {
		t.Errorf("%d pollers for one folder, want 1", n)
	}
	os.WriteFile(s.Cwd+"/src/due.js", []byte("// changed\n"), 0o644)
	for i, ch := range chs {
		if ev := next(t, ch); ev.data["type"] != "file_changed" || ev.data["path"] != "src/due.js" {
			t.Errorf("follower %d: event %+v", i, ev)
		}
	}
	cancel()
	testkit.Eventually(t, func() bool { return r.srv.app.FilePollers.Count() == 0 }, 10*time.Second, "the poller to end")
}

// TestIndexEvents: /api/events announces a changed, a removed and an added
// session, each with an id: line.
func TestIndexEvents(t *testing.T) {
	r := newRig(t, Options{})
	s := r.item("Dark theme")
	id := s.ID
	ctx := t.Context()
	ch := listen(t)(r.api().IndexEvents(ctx, ""))
	next(t, ch) // hello
	expect := func(typ string, ok func(map[string]any) bool) {
		t.Helper()
		for {
			ev := next(t, ch)
			if ev.data["type"] == typ && ok(ev.data) {
				if ev.id == "" {
					t.Errorf("%s without an id: line", typ)
				}
				return
			}
		}
	}
	item := func(d map[string]any) map[string]any { m, _ := d["session"].(map[string]any); return m }
	api := r.api()
	if _, err := api.Rename(ctx, id, "Renamed"); err != nil {
		t.Fatal(err)
	}
	expect("session_updated", func(d map[string]any) bool { return item(d)["id"] == id && item(d)["name"] == "Renamed" })
	del, err := api.Delete(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	expect("session_removed", func(d map[string]any) bool { return d["id"] == id && d["path"] == s.Path })
	if _, err := api.Restore(ctx, del.TrashID); err != nil {
		t.Fatal(err)
	}
	expect("session_added", func(d map[string]any) bool { return item(d)["id"] == id })
}

// TestSSEReplayTimes: a session stream's hello tells the server's clock,
// and a replay is preceded by when the hub received each replayed event,
// so that a page reloaded mid-tool times the tool from its real start;
// the replayed events themselves pass through unchanged.
func TestSSEReplayTimes(t *testing.T) {
	r := newRig(t, Options{})
	dark := r.item("Dark theme")
	st := live.SessionTopic(dark.Path)
	first := r.srv.live.Publish(st, []byte(`{"type":"tool_execution_start","toolCallId":"a"}`)).Seq
	sent := time.Now().UnixMilli()
	time.Sleep(30 * time.Millisecond)
	r.srv.live.Publish(st, []byte(`{"type":"tool_execution_start","toolCallId":"b"}`))
	third := r.srv.live.Publish(st, []byte(`{"type":"tool_execution_end","toolCallId":"b"}`)).Seq
	ctx := t.Context()

	ch := listen(t)(r.api().SessionEvents(ctx, dark.ID, fmt.Sprint(first)))
	hello := next(t, ch)
	now, _ := hello.data["now"].(float64)
	if hello.data["type"] != "hello" || now < float64(sent) || now > float64(time.Now().UnixMilli()) {
		t.Fatalf("hello %+v: want now, the server's clock", hello.data)
	}
	replay := next(t, ch)
	if replay.data["type"] != "replay" || replay.id != "" {
		t.Fatalf("before the replay: %+v, want a replay event without id", replay)
	}
	times, _ := replay.data["times"].([]any)
	if len(times) != 2 {
		t.Fatalf("replay times %v, want two", times)
	}
	for i, want := range []string{"b", "b"} {
		ev := next(t, ch)
		pair, _ := times[i].([]any)
		if len(pair) != 2 || fmt.Sprint(int64(pair[0].(float64))) != ev.id || ev.data["toolCallId"] != want {
			t.Errorf("time %d is %v for event %s %+v", i, times[i], ev.id, ev.data)
			continue
		}
		if at := pair[1].(float64); at < float64(sent+25) || at > now {
			t.Errorf("event %s received at %v, want after %d (30 ms after the first) and by %v", ev.id, at, sent, now)
		}
	}
	if fmt.Sprint(int64(times[1].([]any)[0].(float64))) != fmt.Sprint(third) {
		t.Errorf("last time is for %v, want %d", times[1], third)
	}

	// Nothing to replay, nothing before the live events.
	ch2 := listen(t)(r.api().SessionEvents(ctx, dark.ID, fmt.Sprint(third)))
	next(t, ch2) // hello
	r.srv.live.Publish(st, []byte(`{"type":"agent_end"}`))
	if ev := next(t, ch2); ev.data["type"] != "agent_end" {
		t.Errorf("after hello without a replay: %+v", ev.data)
	}
}
