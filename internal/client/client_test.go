package client

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/errs"
)

// TestOptionsAndErrors: every request carries the extra headers through
// the caller's http.Client; an error answer is an *Error with the API's
// code and message, and a foreign error page keeps its status.
func TestOptionsAndErrors(t *testing.T) {
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" key="+r.Header.Get("X-Fleet-Key"))
		switch r.URL.EscapedPath() {
		case "/api/sessions/a%2Fb":
			w.WriteHeader(404)
			w.Write([]byte(`{"error":{"code":"not_found","message":"session not found"}}`))
		case "/api/trash":
			w.WriteHeader(502)
			w.Write([]byte("<html>bad gateway</html>"))
		default:
			w.Write([]byte(`{"sessions":[{"id":"x","cwd":"/p"}],"total":1}`))
		}
	}))
	defer ts.Close()
	c := New(ts.URL+"/", Options{HTTPClient: ts.Client(), Header: http.Header{"X-Fleet-Key": {"k1"}}})
	list, err := c.Sessions(t.Context(), ListOptions{Project: "/p", Asc: true, Limit: 2})
	if err != nil || list.Total != 1 || list.Sessions[0].ID != "x" {
		t.Fatalf("list %+v, %v", list, err)
	}
	_, err = c.Session(t.Context(), "a/b")
	var e *Error
	if !errors.As(err, &e) || *e != (Error{Status: 404, Code: "not_found", Kind: errs.NotFound, Message: "session not found"}) {
		t.Errorf("error %#v", err)
	}
	if errs.KindOf(err) != errs.NotFound || errs.Message(err) != "session not found" {
		t.Errorf("errs sees %v %q, want the server's kind and message", errs.KindOf(err), errs.Message(err))
	}
	if _, err := c.Trash(t.Context()); StatusOf(err) != 502 || errs.KindOf(err) != errs.Internal || errs.Message(err) != "the other piweb answered with status 502" {
		t.Errorf("foreign error page: %v", err)
	}
	far := c.On("far")
	far.Sessions(t.Context(), ListOptions{Limit: 2})
	far.Models(t.Context())
	if got := far.TerminalSocketURL("s1", "t1"); got != "ws"+ts.URL[4:]+"/api/sessions/s1/terminals/t1/socket?machine=far" {
		t.Errorf("socket URL on far: %s", got)
	}
	want := []string{"GET /api/sessions?limit=2&order=asc&project=%2Fp key=k1",
		"GET /api/sessions/a%2Fb key=k1", "GET /api/trash key=k1",
		"GET /api/sessions?limit=2&machine=far key=k1", "GET /api/models?machine=far key=k1"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestUnknownCode: an error code this build does not know is an *Error
// with that code, of kind Internal.
func TestUnknownCode(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(409)
		w.Write([]byte(`{"error":{"code":"from_the_future","message":"later"}}`))
	}))
	defer ts.Close()
	_, err := New(ts.URL, Options{}).Status(t.Context())
	var e *Error
	if !errors.As(err, &e) || e.Code != "from_the_future" || e.Kind != errs.Internal || StatusOf(err) != 409 {
		t.Errorf("error %#v", err)
	}
}

// TestEvents: a stream's events come with their ids, a comment line is a
// heartbeat, a multiplexed stream's id is read from its first event and
// its frames decode, and the end of the stream is io.EOF.
func TestEvents(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/api/stream" {
			w.Write([]byte("data: {\"type\":\"stream\",\"id\":\"s1\"}\n\n: ping\n\n" +
				"data: {\"topic\":\"index\",\"id\":7,\"event\":{\"type\":\"x\"}}\n\n"))
			return
		}
		w.Write([]byte("data: {\"type\":\"hello\"}\n\n: ping\n\nid: 3\ndata: {\"last\":\"" +
			r.Header.Get("Last-Event-ID") + "\"}\n\n"))
	}))
	defer ts.Close()
	c := New(ts.URL, Options{})
	ev, err := c.SessionEvents(t.Context(), "a", "2")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	var got []string
	for {
		e, err := ev.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s ping=%v", e.ID, e.Data, e.Ping()))
	}
	want := []string{` {"type":"hello"} ping=false`, `  ping=true`, `3 {"last":"2"} ping=false`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	s, err := c.OpenStream(t.Context())
	if err != nil || s.ID != "s1" {
		t.Fatalf("stream %+v, %v", s, err)
	}
	defer s.Close()
	f, err := s.Frame()
	if err != nil || f.Topic != "index" || f.ID != 7 || string(f.Event) != `{"type":"x"}` {
		t.Errorf("frame %+v, %v", f, err)
	}
}

// TestSendAsForwarded: Send passes a body of the caller's with the length
// its header gives (a forwarded request's), and a fleet refusal's clock
// comes with the error.
func TestSendAsForwarded(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/late" {
			w.Header().Set(ClockHeader, "2026-12-05T07:00:00Z")
			w.WriteHeader(401)
			w.Write([]byte(`{"error":{"code":"unauthorized","message":"out of date"}}`))
			return
		}
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%d %v %s", r.ContentLength, r.TransferEncoding, b)
	}))
	defer ts.Close()
	c := New(ts.URL, Options{})
	resp, err := c.Send(t.Context(), "POST", "/up", io.NopCloser(strings.NewReader("abc")), http.Header{"Content-Length": {"3"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != "3 [] abc" {
		t.Errorf("the server saw %q, want the body with its length, not chunked", got)
	}
	_, err = c.Send(t.Context(), "GET", "/late", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Status != 401 || e.Clock != "2026-12-05T07:00:00Z" {
		t.Errorf("a refusal with the server's clock: %#v", err)
	}
}
