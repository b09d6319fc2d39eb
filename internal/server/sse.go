package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"piweb/internal/broker"
)

// serveSSE streams a topic: first hello (without id), then a reset or the
// replay after Last-Event-ID, then live events, with heartbeats, until the
// client leaves, the broker cuts it off or the server shuts down.
func (s *Server) serveSSE(w http.ResponseWriter, r *http.Request, name string, hello []byte) error {
	return s.serveSSEFrom(w, r, name, func() []byte { return hello }, false)
}

// serveSSEFrom is serveSSE with a hello made once the client is
// subscribed: what hello reports (a session's leaf and size) is then
// never older than the first event the client gets, so a client that
// compares it with what it fetched earlier misses no change in between.
// With timed, a replay is preceded by a replay event giving when the
// broker received each replayed event: a page reloaded while a tool runs
// times the tool from its real start, not from when the replay reached it,
// and pi's event objects still pass through unchanged.
func (s *Server) serveSSEFrom(w http.ResponseWriter, r *http.Request, name string, makeHello func() []byte, timed bool) error {
	last := parseLastID(r.Header.Get("Last-Event-ID"))
	if v := r.URL.Query().Get("lastEventId"); v != "" && last < 0 {
		last = parseLastID(v)
	}
	sub := s.events.NewSub()
	defer sub.Close()
	replay, reset, err := subscribeFrom(sub, name, last)
	if err != nil {
		return errorf(Internal, "event broker closed")
	}
	out := newSSEWriter(w, s.opts.WriteTimeout)
	out.topicStart("", makeHello(), reset, s.events.Last(name), timed, replay)
	if !out.flush() {
		return nil
	}
	return s.pump(r, out, sub, nil)
}

// pump writes the subscription's live events, heartbeats and (for a
// multiplexed stream) the subscriptions ctl asks for, until the client
// leaves, the broker cuts it off or the server shuts down.
func (s *Server) pump(r *http.Request, out *sseWriter, sub *broker.Sub[broker.Event], ctl <-chan streamOp) error {
	tick := time.NewTicker(s.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.shutdown:
			return nil
		case op := <-ctl:
			op.done <- op.run(out, sub)
		case ev, open := <-sub.C:
			if !open {
				return nil // cut off as too slow; it resumes with Last-Event-ID
			}
			out.drain(ev, sub.C)
		case <-tick.C:
			out.bw.WriteString(": ping\n\n")
		}
		if !out.flush() {
			return nil
		}
	}
}

// sseWriter writes SSE events. A multiplexed stream (mux) wraps each event
// as {"topic":…,"id":…,"event":…} so that the page routes it to the
// topic's subscriber; a single-topic stream writes the event itself with
// an id: line.
type sseWriter struct {
	rc  *http.ResponseController
	bw  *bufio.Writer
	mux bool
	// names are the page's names of the broker topics a multiplexed
	// stream follows ("s/<id>" for a session's file topic).
	names map[string]string
	// timeout bounds each flush (Options.WriteTimeout).
	timeout time.Duration
}

func newSSEWriter(w http.ResponseWriter, timeout time.Duration) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{rc: http.NewResponseController(w), bw: bufio.NewWriterSize(w, 16<<10), timeout: timeout}
}

// flush sends what is buffered within the write timeout; false when the
// client is gone or too slow.
func (o *sseWriter) flush() bool {
	o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	return o.bw.Flush() == nil && o.rc.Flush() == nil
}

// topicStart writes what a new subscriber of a topic gets before its live
// events: hello, a reset (numbered last) when events were lost, the replay
// times (when timed) and the replay.
func (o *sseWriter) topicStart(topic string, hello []byte, reset bool, last uint64, timed bool, replay []broker.Event) {
	o.write(topic, 0, hello)
	if reset {
		o.write(topic, last, []byte(`{"type":"reset"}`))
	}
	if timed && len(replay) > 0 {
		o.write(topic, 0, replayTimes(replay))
	}
	for _, ev := range replay {
		o.write(topic, ev.Seq, ev.Raw)
	}
}

// drain writes ev and whatever else is already queued, so a burst costs
// one flush.
func (o *sseWriter) drain(ev broker.Event, ch <-chan broker.Event) {
	o.write(o.name(ev.Topic), ev.Seq, ev.Raw)
	for range 256 {
		select {
		case ev, open := <-ch:
			if !open {
				return
			}
			o.write(o.name(ev.Topic), ev.Seq, ev.Raw)
		default:
			return
		}
	}
}

// name is the page's name of a broker topic.
func (o *sseWriter) name(topic string) string {
	if n, found := o.names[topic]; found {
		return n
	}
	return topic
}

// replayTimes encodes the replay event that precedes a replay: for each
// replayed event its id and when the broker received it (Unix ms), as
// {"type":"replay","times":[[id,ms],…]}.
func replayTimes(replay []broker.Event) []byte {
	b := make([]byte, 0, 32+len(replay)*32)
	b = append(b, `{"type":"replay","times":[`...)
	for i, ev := range replay {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendUint(b, ev.Seq, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, ev.At.UnixMilli(), 10)
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

// write writes one SSE event (id 0: none). data is a single-line JSON
// object (the encoders never emit raw newlines), so one data: line
// suffices.
func (o *sseWriter) write(topic string, id uint64, data []byte) {
	bw := o.bw
	if o.mux {
		bw.WriteString(`data: {"topic":`)
		topicJSON, _ := json.Marshal(topic)
		bw.Write(topicJSON)
		if id > 0 {
			bw.WriteString(`,"id":`)
			bw.WriteString(strconv.FormatUint(id, 10))
		}
		bw.WriteString(`,"event":`)
		bw.Write(data)
		bw.WriteString("}\n\n")
		return
	}
	if id > 0 {
		bw.WriteString("id: ")
		bw.WriteString(strconv.FormatUint(id, 10))
		bw.WriteByte('\n')
	}
	bw.WriteString("data: ")
	bw.Write(data)
	bw.WriteString("\n\n")
}

// parseLastID reads a Last-Event-ID header: -1 when absent, 0 (everything
// still kept) for "0", and 1 (a number no run issues, so a reset) when
// malformed.
func parseLastID(s string) int64 {
	if s == "" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 1
	}
	return n
}

// subscribeFrom subscribes sub to topic after lastID (see parseLastID): no
// replay for -1, a reset (complete false) when lastID is unknown, from
// another run or older than what is kept.
func subscribeFrom(sub *broker.Sub[broker.Event], topic string, lastID int64) (replay []broker.Event, reset bool, err error) {
	if lastID < 0 {
		return nil, false, sub.Follow(topic)
	}
	// 0 asks for everything the topic still keeps (the broker replays from
	// the topic's first event); a number of an earlier run is a reset.
	replay, complete, err := sub.Resume(topic, uint64(lastID))
	if !complete {
		replay = nil
	}
	return replay, !complete, err
}
