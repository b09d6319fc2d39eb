package server

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// sseHeartbeat is how often an idle stream gets a comment line, so proxies
// and browsers keep it open and dead clients are noticed.
var sseHeartbeat = 15 * time.Second

// sseWriteTimeout bounds each write: a client that stops reading is
// dropped instead of pinning a goroutine.
var sseWriteTimeout = 10 * time.Second

// serveSSE streams a topic: first hello (without id), then a reset or the
// replay after Last-Event-ID, then live events, with heartbeats, until the
// client leaves, the hub cuts it off or the server shuts down.
func (s *Server) serveSSE(w http.ResponseWriter, r *http.Request, name string, hello []byte) error {
	return s.serveSSEFrom(w, r, name, func() []byte { return hello }, false)
}

// serveSSEFrom is serveSSE with a hello made once the client is
// subscribed: what hello reports (a session's leaf and size) is then
// never older than the first event the client gets, so a client that
// compares it with what it fetched earlier misses no change in between.
// With timed, a replay is preceded by a replay event giving when the hub
// received each replayed event: a page reloaded while a tool runs times
// the tool from its real start, not from when the replay reached it, and
// pi's event objects still pass through unchanged.
func (s *Server) serveSSEFrom(w http.ResponseWriter, r *http.Request, name string, makeHello func() []byte, timed bool) error {
	last := parseLastID(r.Header.Get("Last-Event-ID"))
	if v := r.URL.Query().Get("lastEventId"); v != "" && last < 0 {
		last = parseLastID(v)
	}
	sub, replay, reset := s.hub.subscribe(name, last)
	defer s.hub.unsubscribe(name, sub)
	hello := makeHello()

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 16<<10)
	send := func(write func() error) bool {
		rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
		if write() != nil || bw.Flush() != nil || rc.Flush() != nil {
			return false
		}
		return true
	}
	first := func() error {
		writeEvent(bw, -1, hello)
		if reset {
			writeEvent(bw, s.hub.next.Load(), []byte(`{"type":"reset"}`))
		}
		if timed && len(replay) > 0 {
			writeEvent(bw, -1, replayTimes(replay))
		}
		for _, ev := range replay {
			writeEvent(bw, ev.id, ev.data)
		}
		return nil
	}
	if !send(first) {
		return nil
	}
	tick := time.NewTicker(sseHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.shutdown:
			return nil
		case ev, open := <-sub.ch:
			if !open {
				return nil // cut off as too slow; it resumes with Last-Event-ID
			}
			if !send(func() error { return drain(bw, ev, sub.ch) }) {
				return nil
			}
		case <-tick.C:
			if !send(func() error { _, err := bw.WriteString(": ping\n\n"); return err }) {
				return nil
			}
		}
	}
}

// drain writes ev and whatever else is already queued, so a burst costs
// one flush.
func drain(bw *bufio.Writer, ev event, ch <-chan event) error {
	writeEvent(bw, ev.id, ev.data)
	for range 256 {
		select {
		case ev, open := <-ch:
			if !open {
				return nil
			}
			writeEvent(bw, ev.id, ev.data)
		default:
			return nil
		}
	}
	return nil
}

// replayTimes encodes the replay event that precedes a replay: for each
// replayed event its id and when the hub received it (Unix ms), as
// {"type":"replay","times":[[id,ms],…]}.
func replayTimes(replay []event) []byte {
	b := make([]byte, 0, 32+len(replay)*32)
	b = append(b, `{"type":"replay","times":[`...)
	for i, ev := range replay {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, ev.id, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, ev.at, 10)
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

// writeEvent writes one SSE event. data is a single-line JSON object (the
// encoders never emit raw newlines), so one data: line suffices.
func writeEvent(bw *bufio.Writer, id int64, data []byte) {
	if id >= 0 {
		bw.WriteString("id: ")
		bw.WriteString(strconv.FormatInt(id, 10))
		bw.WriteByte('\n')
	}
	bw.WriteString("data: ")
	bw.Write(data)
	bw.WriteString("\n\n")
}

var _ = fmt.Sprintf
