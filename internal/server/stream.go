package server

import (
	"net/http"
	"sync"

	"piweb/internal/apitype"
	"piweb/internal/broker"
)

// A page holds ONE event stream (GET /api/stream) and subscribes it to
// topics by POST /api/stream/subscribe: the index, a session (its file's
// growth and its worker's events) or a folder or file of a session's cwd.
// Each topic's events arrive as {"topic","id","event"} in the same order
// and shapes as a single-topic stream (hello, reset or replay, live
// events), and each topic resumes after its own last id, so the files
// panel, the session view, the sidebar and the chat share one of the
// browser's six connections per host.

// streams are the open multiplexed streams by id.
type streams struct {
	mu sync.Mutex
	m  map[string]chan streamOp
}

// streamOp is a subscription change, run by the stream's own goroutine so
// that a topic's hello and replay are written before its live events.
type streamOp struct {
	run  func(out *sseWriter, sub *broker.Sub[broker.Event]) error
	done chan error
}

func (st *streams) add(ctl chan streamOp) string {
	id := randHex(16)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m == nil {
		st.m = map[string]chan streamOp{}
	}
	st.m[id] = ctl
	return id
}

func (st *streams) remove(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.m, id)
}

func (st *streams) get(id string) chan streamOp {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m[id]
}

// stream serves GET /api/stream: first {"type":"stream","id":…} (the id
// subscriptions name), then the events of the topics subscribed to.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) error {
	ctl := make(chan streamOp)
	id := s.streams.add(ctl)
	defer s.streams.remove(id)
	sub := s.events.NewSub()
	defer sub.Close()
	out := newSSEWriter(w, s.opts.WriteTimeout)
	out.bw.WriteString(`data: {"type":"stream","id":"` + id + "\"}\n\n")
	if !out.flush() {
		return nil
	}
	out.mux, out.names = true, map[string]string{}
	return s.pump(r, out, sub, ctl)
}

// subscribe adds a topic to a stream. It answers once the topic's hello
// and replay are on their way, in order before its live events.
func (s *Server) subscribe(w http.ResponseWriter, r *http.Request) error {
	var req apitype.StreamRequest
	if err := decodeBody(w, r, &req, 4<<10); err != nil {
		return err
	}
	ctl := s.streams.get(req.Stream)
	if ctl == nil {
		return errorf(NotFound, "stream not found")
	}
	t, err := s.live.ResolveTopic(req.Topic, s.lookupID)
	if err != nil {
		return err
	}
	after := int64(-1)
	if req.After != nil {
		after = max(*req.After, 0)
	}
	op := streamOp{done: make(chan error, 1), run: func(out *sseWriter, sub *broker.Sub[broker.Event]) error {
		replay, reset, err := subscribeFrom(sub, t.Name, after)
		if err != nil {
			return err
		}
		out.names[t.Name] = req.Topic
		out.topicStart(req.Topic, t.Hello(), reset, s.events.Last(t.Name), t.Timed, replay)
		return nil
	}}
	if err := s.runOp(r, ctl, op); err != nil {
		return err
	}
	return ok(w, struct{}{})
}

// unsubscribe removes a topic from a stream.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	var req apitype.StreamRequest
	if err := decodeBody(w, r, &req, 4<<10); err != nil {
		return err
	}
	ctl := s.streams.get(req.Stream)
	if ctl == nil {
		return errorf(NotFound, "stream not found")
	}
	op := streamOp{done: make(chan error, 1), run: func(out *sseWriter, sub *broker.Sub[broker.Event]) error {
		for topic, name := range out.names {
			if name == req.Topic {
				sub.Unsubscribe(topic)
				delete(out.names, topic)
			}
		}
		return nil
	}}
	if err := s.runOp(r, ctl, op); err != nil {
		return err
	}
	return ok(w, struct{}{})
}

// runOp hands op to the stream's goroutine and waits for it.
func (s *Server) runOp(r *http.Request, ctl chan streamOp, op streamOp) error {
	select {
	case ctl <- op:
	case <-r.Context().Done():
		return r.Context().Err()
	case <-s.shutdown:
		return errorf(NotFound, "stream not found")
	}
	select {
	case err := <-op.done:
		if err != nil {
			return errorf(NotFound, "stream not found")
		}
		return nil
	case <-r.Context().Done():
		return r.Context().Err()
	}
}
