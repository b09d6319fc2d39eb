// Package sse serves the broker's topics to HTTP clients as Server-Sent
// Events: a single-topic stream (Serve) or one multiplexed stream per
// page (ServeMux) that topics are added to and removed from by id
// (Subscribe, Unsubscribe). Each subscriber of a topic gets its hello
// first, then a reset or the replay after its Last-Event-ID, then the live
// events in order, with heartbeats while idle. A client the broker cuts
// off as too slow, or that does not take a write within WriteTimeout, is
// dropped (it resumes with Last-Event-ID). It knows no routes or topic
// names: which topics exist and who may follow them is the caller's.
package sse

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync"
	"time"

	"piweb/internal/broker"
	"piweb/internal/errs"
)

// Options time a Streams' connections. Zero fields take the defaults.
type Options struct {
	// Heartbeat is how often an idle stream gets a comment line, so
	// proxies and browsers keep it open and dead clients are noticed; 0
	// means 15 s.
	Heartbeat time.Duration
	// WriteTimeout bounds each flush: a client that stops reading is
	// dropped instead of pinning a goroutine; 0 means 10 s.
	WriteTimeout time.Duration
}

// The errors of Serve, Subscribe and Unsubscribe.
var (
	// ErrClosed: the broker was closed, so no topic can be followed.
	ErrClosed = errs.New(errs.Internal, "event broker closed", "sse: event broker closed")
	// ErrNoStream: no multiplexed stream has the id (it ended, or the
	// Streams was closed).
	ErrNoStream = errs.New(errs.NotFound, "stream not found", "sse: stream not found")
)

// Topic is a broker topic as a subscriber gets it: Hello is called once the
// subscription exists, so what it reports is never older than the first
// event that follows it; with Timed, a replay is preceded by a replay event
// giving when the broker received each replayed event (a page reloaded
// while a tool runs times the tool from its real start).
type Topic struct {
	Name  string
	Hello func() []byte
	Timed bool
}

// Streams serves event streams from one broker and keeps the open
// multiplexed streams by id. Its methods are safe for concurrent use.
type Streams struct {
	events    *broker.Broker[broker.Event]
	opts      Options
	done      chan struct{}
	closeOnce sync.Once
	mu        sync.Mutex
	open      map[string]chan op
}

// op is a subscription change, run by the stream's own goroutine so that a
// topic's hello and replay are written before its live events.
type op struct {
	run  func(out *writer, sub *broker.Sub[broker.Event]) error
	done chan error
}

// New returns Streams over events with opts, zero fields defaulted.
func New(events *broker.Broker[broker.Event], opts Options) *Streams {
	opts.Heartbeat = cmp.Or(opts.Heartbeat, 15*time.Second)
	opts.WriteTimeout = cmp.Or(opts.WriteTimeout, 10*time.Second)
	return &Streams{events: events, opts: opts, done: make(chan struct{}), open: map[string]chan op{}}
}

// Close ends every stream, now and later opened; it is idempotent.
func (x *Streams) Close() { x.closeOnce.Do(func() { close(x.done) }) }

// Serve streams one topic until the client leaves, the broker cuts it off
// or Close: hello (without id), then a reset or the replay after the
// request's Last-Event-ID header (else its lastEventId query parameter),
// then live events.
func (x *Streams) Serve(w http.ResponseWriter, r *http.Request, t Topic) error {
	last := ParseLastID(r.Header.Get("Last-Event-ID"))
	if v := r.URL.Query().Get("lastEventId"); v != "" && last < 0 {
		last = ParseLastID(v)
	}
	sub := x.events.NewSub()
	defer sub.Close()
	replay, reset, err := subscribeFrom(sub, t.Name, last)
	if err != nil {
		return ErrClosed
	}
	out := newWriter(w, x.opts.WriteTimeout)
	out.topicStart("", t.Hello(), reset, x.events.Last(t.Name), t.Timed, replay)
	if !out.flush() {
		return nil
	}
	x.pump(r, out, sub, nil)
	return nil
}

// ServeMux serves a multiplexed stream: first {"type":"stream","id":…}
// (the id Subscribe names), then each subscribed topic's events wrapped as
// {"topic":…,"id":…,"event":…}, until the client leaves, the broker cuts
// it off or Close.
func (x *Streams) ServeMux(w http.ResponseWriter, r *http.Request) error {
	ctl := make(chan op)
	id := x.add(ctl)
	defer x.remove(id)
	sub := x.events.NewSub()
	defer sub.Close()
	out := newWriter(w, x.opts.WriteTimeout)
	out.bw.WriteString(`data: {"type":"stream","id":"` + id + "\"}\n\n")
	if !out.flush() {
		return nil
	}
	out.mux, out.names = true, map[string]string{}
	x.pump(r, out, sub, ctl)
	return nil
}

// Subscribe adds topic t to stream under the page's name for it, after
// the page's last id of it (negative: no replay). It returns once the
// topic's hello and replay are on their way, in order before its live
// events; ErrNoStream when the stream is gone, ctx's error when ctx ends
// first.
func (x *Streams) Subscribe(ctx context.Context, stream, name string, t Topic, after int64) error {
	return x.run(ctx, stream, func(out *writer, sub *broker.Sub[broker.Event]) error {
		replay, reset, err := subscribeFrom(sub, t.Name, after)
		if err != nil {
			return err
		}
		out.names[t.Name] = name
		out.topicStart(name, t.Hello(), reset, x.events.Last(t.Name), t.Timed, replay)
		return nil
	})
}

// Unsubscribe removes the topics the page named name from stream.
func (x *Streams) Unsubscribe(ctx context.Context, stream, name string) error {
	return x.run(ctx, stream, func(out *writer, sub *broker.Sub[broker.Event]) error {
		for topic, n := range out.names {
			if n == name {
				sub.Unsubscribe(topic)
				delete(out.names, topic)
			}
		}
		return nil
	})
}

// run hands fn to the stream's goroutine and waits for it.
func (x *Streams) run(ctx context.Context, stream string, fn func(*writer, *broker.Sub[broker.Event]) error) error {
	ctl := x.get(stream)
	if ctl == nil {
		return ErrNoStream
	}
	o := op{run: fn, done: make(chan error, 1)}
	select {
	case ctl <- o:
	case <-ctx.Done():
		return ctx.Err()
	case <-x.done:
		return ErrNoStream
	}
	select {
	case err := <-o.done:
		if err != nil {
			return ErrNoStream
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pump writes the subscription's live events, heartbeats and (for a
// multiplexed stream) the subscriptions ctl asks for, until the client
// leaves, the broker cuts it off or Close.
func (x *Streams) pump(r *http.Request, out *writer, sub *broker.Sub[broker.Event], ctl <-chan op) {
	tick := time.NewTicker(x.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-x.done:
			return
		case o := <-ctl:
			o.done <- o.run(out, sub)
		case ev, open := <-sub.C:
			if !open {
				return // cut off as too slow; it resumes with Last-Event-ID
			}
			out.drain(ev, sub.C)
		case <-tick.C:
			out.bw.WriteString(": ping\n\n")
		}
		if !out.flush() {
			return
		}
	}
}

func (x *Streams) add(ctl chan op) string {
	b := make([]byte, 16)
	rand.Read(b)
	id := hex.EncodeToString(b)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.open[id] = ctl
	return id
}

func (x *Streams) remove(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.open, id)
}

// Has reports whether a multiplexed stream with the id is open.
func (x *Streams) Has(id string) bool { return x.get(id) != nil }

func (x *Streams) get(id string) chan op {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.open[id]
}

// ParseLastID reads a Last-Event-ID: -1 when absent, 0 (everything still
// kept) for "0", and 1 (a number no run issues, so a reset) when
// malformed.
func ParseLastID(s string) int64 {
	if s == "" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 1
	}
	return n
}

// subscribeFrom subscribes sub to topic after lastID (see ParseLastID): no
// replay for -1, a reset when lastID is unknown, from another run or older
// than what is kept.
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

// Open reports how many event streams are open now.
func (s *Streams) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}
