package sse

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"piweb/internal/broker"
)

// writer writes SSE events. A multiplexed stream (mux) wraps each event as
// {"topic":…,"id":…,"event":…} so that the page routes it to the topic's
// subscriber; a single-topic stream writes the event itself with an id:
// line.
type writer struct {
	rc  *http.ResponseController
	bw  *bufio.Writer
	mux bool
	// names are the page's names of the broker topics a multiplexed
	// stream follows.
	names map[string]string
	// timeout bounds each flush (Options.WriteTimeout).
	timeout time.Duration
}

func newWriter(w http.ResponseWriter, timeout time.Duration) *writer {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &writer{rc: http.NewResponseController(w), bw: bufio.NewWriterSize(w, 16<<10), timeout: timeout}
}

// flush sends what is buffered within the write timeout; false when the
// client is gone or too slow.
func (o *writer) flush() bool {
	o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	return o.bw.Flush() == nil && o.rc.Flush() == nil
}

// topicStart writes what a new subscriber of a topic gets before its live
// events: hello, a reset (numbered last) when events were lost, the replay
// times (when timed) and the replay. name is the page's name of the topic
// ("" on a single-topic stream).
func (o *writer) topicStart(name string, hello []byte, reset bool, last uint64, timed bool, replay []broker.Event) {
	o.write(name, 0, hello)
	if reset {
		o.write(name, last, []byte(`{"type":"reset"}`))
	}
	if timed && len(replay) > 0 {
		o.write(name, 0, replayTimes(replay))
	}
	for _, ev := range replay {
		o.write(name, ev.Seq, ev.Raw)
	}
}

// drain writes ev and whatever else is already queued, so a burst costs
// one flush.
func (o *writer) drain(ev broker.Event, ch <-chan broker.Event) {
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
func (o *writer) name(topic string) string {
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
func (o *writer) write(topic string, id uint64, data []byte) {
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
