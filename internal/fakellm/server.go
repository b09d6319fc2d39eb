package fakellm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"piweb/internal/ctxwait"
)

// Rule computes a reply for a request. It returns false to fall through to
// the next source (the built-in Demo rule).
type Rule func(*Request) (Reply, bool)

// Options configures a Server. The zero value is a working demo server.
type Options struct {
	// Rule answers requests when the queue is empty. nil means Demo.
	Rule Rule
	// Summary is the canned answer to pi's summarization requests
	// (compaction, turn prefix, branch summary). Empty means DefaultSummary.
	Summary string
	// ScriptSummaries sends summarization requests through the queue and
	// Rule like ordinary turns, e.g. to make a compaction fail.
	ScriptSummaries bool
	// Models lists the ids reported by GET /v1/models; nil means
	// ModelID and ThinkerID.
	Models []string
	// Log, if set, gets one record per request (at DEBUG).
	Log *slog.Logger
}

// Server is the fake OpenAI-compatible endpoint. It is an http.Handler (use
// it with httptest.NewServer) and can also listen by itself with Start.
// All methods are safe for concurrent use.
type Server struct {
	opts Options

	mu      sync.Mutex
	queue   []Reply
	reqs    []*Request
	arrived chan struct{} // closed and replaced on every recorded request
	seq     int

	hs  *http.Server
	url string
}

// New returns a server with an empty queue.
func New(opts Options) *Server {
	if opts.Rule == nil {
		opts.Rule = Demo
	}
	if opts.Summary == "" {
		opts.Summary = DefaultSummary
	}
	if opts.Models == nil {
		opts.Models = []string{ModelID, ThinkerID}
	}
	return &Server{opts: opts, arrived: make(chan struct{})}
}

// Enqueue appends scripted replies; each chat request takes the first one.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Reset drops queued replies and recorded requests, e.g. between steps
// that share one pi process.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue, s.reqs = nil, nil
}

// Pending returns the number of scripted replies not yet served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns every chat completion request received so far, oldest
// first.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// LastRequest returns the most recent request, or nil.
func (s *Server) LastRequest() *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return nil
	}
	return s.reqs[len(s.reqs)-1]
}

// WaitRequests blocks until at least n requests have been recorded or ctx
// ends, and returns the requests recorded so far.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]*Request, error) {
	for {
		s.mu.Lock()
		reqs, ch := append([]*Request(nil), s.reqs...), s.arrived
		s.mu.Unlock()
		if len(reqs) >= n {
			return reqs, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return reqs, fmt.Errorf("wait for %d requests (have %d): %w", n, len(reqs), ctx.Err())
		}
	}
}

// Start listens on addr (e.g. "127.0.0.1:0") and serves in the background.
// It returns the base URL to put in models.json, ending in /v1.
func (s *Server) Start(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("fakellm listen: %w", err)
	}
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	s.url = "http://" + ln.Addr().String() + "/v1"
	go s.hs.Serve(ln)
	return s.url, nil
}

// URL returns the base URL after Start.
func (s *Server) URL() string { return s.url }

// Close stops a server started with Start, cutting open streams.
func (s *Server) Close() error {
	if s.hs == nil {
		return nil
	}
	return s.hs.Close()
}

// ServeHTTP routes /v1/chat/completions and /v1/models; the /v1 prefix is
// optional so any baseUrl works.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	switch {
	case path == "/chat/completions" && r.Method == http.MethodPost:
		s.serveChat(w, r)
	case path == "/models" && r.Method == http.MethodGet:
		s.serveModels(w)
	default:
		writeError(w, Reply{Status: http.StatusNotFound, ErrorMessage: "no route " + r.Method + " " + r.URL.Path})
	}
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, Reply{Status: http.StatusBadRequest, ErrorMessage: err.Error()})
		return
	}
	req, err := decodeRequest(body, r.Header)
	if err != nil {
		writeError(w, Reply{Status: http.StatusBadRequest, ErrorMessage: err.Error()})
		return
	}
	reply, id := s.record(req)
	if s.opts.Log != nil {
		s.opts.Log.Debug("fakellm: request", "id", id, "kind", req.Kind(), "model", req.Model,
			"messages", len(req.Messages), "reply", describe(reply))
	}
	if err := ctxwait.Sleep(r.Context(), reply.Latency); err != nil {
		return
	}
	if reply.Status != 0 {
		writeError(w, reply)
		return
	}
	s.serveReply(w, r, req, reply, id)
}

func (s *Server) serveReply(w http.ResponseWriter, r *http.Request, req *Request, reply Reply, id string) {
	var usage *Usage
	if req.IncludeUsage() || !req.Stream {
		usage = usageFor(req, reply)
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, completion(id, req.Model, reply, usage))
		return
	}
	err := newStreamer(r.Context(), w, id, req.Model, reply).run(usage)
	if errors.Is(err, errAborted) {
		// Abort without the terminating chunk so the client sees a
		// truncated body, exactly like a dying upstream.
		panic(http.ErrAbortHandler)
	}
}

// record stores the request and picks its reply under one lock, so that
// concurrent requests (pi runs split-turn summaries in parallel) each take
// a distinct queue entry.
func (s *Server) record(req *Request) (Reply, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.seq++
	id := fmt.Sprintf("chatcmpl-fake-%d", s.seq)
	reply := s.pick(req)
	for i := range reply.Calls {
		if reply.Calls[i].ID == "" {
			reply.Calls[i].ID = fmt.Sprintf("call_%d_%d", s.seq, i)
		}
	}
	return reply, id
}

// pick chooses the reply: canned summary, then queue, then Rule, then Demo.
func (s *Server) pick(req *Request) Reply {
	if !s.opts.ScriptSummaries && req.Kind() != KindChat {
		return Text(s.opts.Summary)
	}
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		r.Calls = append([]Call(nil), r.Calls...)
		return r
	}
	if r, ok := s.opts.Rule(req); ok {
		return r
	}
	if req.Kind() != KindChat {
		return Text(s.opts.Summary)
	}
	r, _ := Demo(req)
	return r
}

func (s *Server) serveModels(w http.ResponseWriter) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range s.opts.Models {
		list.Data = append(list.Data, model{ID: id, Object: "model", Created: 0, OwnedBy: "piweb"})
	}
	writeJSON(w, http.StatusOK, list)
}

func describe(r Reply) string {
	switch {
	case r.Status != 0:
		return fmt.Sprintf("HTTP %d", r.Status)
	case len(r.Calls) > 0:
		return fmt.Sprintf("%d tool call(s)", len(r.Calls))
	case r.Drop:
		return "drop"
	}
	return fmt.Sprintf("text %dB", len(r.Text))
}

// writeError sends an OpenAI-style error body. The SDK turns it into the
// message "<status> <error.message>", which is what pi's retry and overflow
// classifiers match against.
func writeError(w http.ResponseWriter, r Reply) {
	typ := r.ErrorType
	if typ == "" {
		typ = "server_error"
		if r.Status < 500 {
			typ = "invalid_request_error"
		}
	}
	msg := r.ErrorMessage
	if msg == "" {
		msg = http.StatusText(r.Status)
	}
	if !r.SDKRetry {
		w.Header().Set("x-should-retry", "false")
	}
	body := map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}}
	writeJSON(w, r.Status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
