package server

import (
	"net/http"
	"path"
	"path/filepath"

	"piweb/internal/apitype"
	"piweb/internal/cwdfs"
	"piweb/internal/live"
	"piweb/internal/sse"
)

// A page holds ONE event stream (GET /api/stream) and subscribes it to
// topics by POST /api/stream/subscribe: the index, a session (its file's
// growth and its worker's events) or a folder or file of a session's cwd.
// Each topic's events arrive as {"topic","id","event"} in the same order
// and shapes as a single-topic stream (hello, reset or replay, live
// events), and each topic resumes after its own last id, so the files
// panel, the session view, the sidebar and the chat share one of the
// browser's six connections per host. The streaming itself is
// internal/sse's.

// stream serves GET /api/stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) error {
	return s.sse.ServeMux(w, r)
}

// subscribe adds a topic to a stream. It answers once the topic's hello
// and replay are on their way, in order before its live events.
func (s *Server) subscribe(w http.ResponseWriter, r *http.Request) error {
	var req apitype.StreamRequest
	if err := decodeBody(w, r, &req, 4<<10); err != nil {
		return err
	}
	if !s.sse.Has(req.Stream) {
		return sse.ErrNoStream // before the topic's checks, as ever
	}
	t, err := s.live.ResolveTopic(req.Topic, func(id string) (Meta, error) { return s.lookupID(r.Context(), id) })
	if err != nil {
		return err
	}
	after := int64(-1)
	if req.After != nil {
		after = max(*req.After, 0)
	}
	if err := s.sse.Subscribe(r.Context(), req.Stream, req.Topic, sse.Topic(t), after); err != nil {
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
	if err := s.sse.Unsubscribe(r.Context(), req.Stream, req.Topic); err != nil {
		return err
	}
	return ok(w, struct{}{})
}

// sessionEvents streams a session's topic: its file's growth and its
// worker's events, the hello made once subscribed (its leaf and size are
// then never older than the first event).
func (s *Server) sessionEvents(w http.ResponseWriter, r *http.Request, m Meta) error {
	return s.sse.Serve(w, r, sse.Topic{Name: live.SessionTopic(m.Path), Hello: func() []byte { return s.live.SessionHello(m) }, Timed: true})
}

func (s *Server) indexEvents(w http.ResponseWriter, r *http.Request) error {
	return s.sse.Serve(w, r, sse.Topic{Name: live.IndexTopic, Hello: func() []byte { return []byte(`{"type":"hello"}`) }})
}

// fileEvents streams file_changed events of a file or directory (the
// single-topic form of the topic f/<id>/<path> of /api/stream).
func (s *Server) fileEvents(w http.ResponseWriter, r *http.Request, m Meta) error {
	_, real, err := cwdfs.Resolve(m.Cwd, r.URL.Query().Get("path"))
	if err != nil {
		return err
	}
	rel := path.Clean("/" + filepath.ToSlash(r.URL.Query().Get("path")))[1:]
	topic := live.FilesTopic(m.Key, rel)
	return s.sse.Serve(w, r, sse.Topic{Name: topic, Hello: func() []byte {
		s.app.FilePollers.Watch(topic, real, rel)
		return []byte(`{"type":"hello"}`)
	}})
}
