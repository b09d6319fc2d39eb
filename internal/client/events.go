package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"piweb/internal/apitype"
)

// The event streams (text/event-stream): a topic's own stream, or one
// stream a page subscribes to several topics (Stream, Subscribe).

// Event is one event of a stream: its id ("" for one without: a hello,
// a replay's times) and its data, one JSON object; a heartbeat has no
// data.
type Event struct {
	ID   string
	Data json.RawMessage
}

// Ping says the event is a heartbeat (a comment line).
func (e Event) Ping() bool { return e.Data == nil }

// Events reads an open event stream. It is not safe for concurrent use;
// Close (or the end of its context) ends it.
type Events struct {
	body io.ReadCloser
	sc   *bufio.Scanner
}

// Next is the stream's next event, heartbeats included; io.EOF once the
// server ends the stream.
func (s *Events) Next() (Event, error) {
	var ev Event
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "data: "):
			ev.Data = json.RawMessage(line[6:])
		case strings.HasPrefix(line, ":"):
			return Event{}, nil
		case line == "" && ev.Data != nil:
			return ev, nil
		}
	}
	if err := s.sc.Err(); err != nil {
		return Event{}, err
	}
	return Event{}, io.EOF
}

// Close ends the stream.
func (s *Events) Close() error { return s.body.Close() }

// events opens the stream at path, resuming after lastID when not "".
func (c *Client) events(ctx context.Context, path, lastID string) (*Events, error) {
	hdr := http.Header{"Accept": {"text/event-stream"}}
	if lastID != "" {
		hdr.Set("Last-Event-ID", lastID)
	}
	resp, err := c.Send(ctx, http.MethodGet, path, nil, hdr)
	if err != nil {
		return nil, err
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("piweb GET %s: answer of type %q, not an event stream", path, ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	return &Events{body: resp.Body, sc: sc}, nil
}

// IndexEvents is GET /api/events: the listing's changes.
func (c *Client) IndexEvents(ctx context.Context, lastID string) (*Events, error) {
	return c.events(ctx, "/api/events", lastID)
}

// SessionEvents is GET /api/sessions/{id}/events: the file's growth and
// pi's events.
func (c *Client) SessionEvents(ctx context.Context, id, lastID string) (*Events, error) {
	return c.events(ctx, sessionPath(id, "/events"), lastID)
}

// FileEvents is GET /api/sessions/{id}/files/events: the changes of the
// file or folder at path of the session's cwd.
func (c *Client) FileEvents(ctx context.Context, id, path, lastID string) (*Events, error) {
	return c.events(ctx, sessionPath(id, "/files/events"+query("path", path)), lastID)
}

// Stream is a multiplexed stream (GET /api/stream): ID names it to
// Subscribe, and each of its events carries a topic's event.
type Stream struct {
	*Events
	ID string
}

// Frame is the next topic event of the stream, heartbeats skipped.
func (s *Stream) Frame() (apitype.StreamFrame, error) {
	for {
		ev, err := s.Next()
		if err != nil || ev.Ping() {
			if err != nil {
				return apitype.StreamFrame{}, err
			}
			continue
		}
		var f apitype.StreamFrame
		if err := json.Unmarshal(ev.Data, &f); err != nil {
			return f, fmt.Errorf("piweb stream: %w", err)
		}
		return f, nil
	}
}

// OpenStream is GET /api/stream: a stream without topics, its id read
// from its first event.
func (c *Client) OpenStream(ctx context.Context) (*Stream, error) {
	ev, err := c.events(ctx, "/api/stream", "")
	if err != nil {
		return nil, err
	}
	first, err := ev.Next()
	var hello struct{ Type, ID string }
	if err == nil {
		err = json.Unmarshal(first.Data, &hello)
	}
	if err == nil && (hello.Type != "stream" || hello.ID == "") {
		err = fmt.Errorf("piweb stream: first event %s, not the stream's id", first.Data)
	}
	if err != nil {
		ev.Close()
		return nil, err
	}
	return &Stream{Events: ev, ID: hello.ID}, nil
}

// Subscribe is POST /api/stream/subscribe: the topic's events join the
// stream (after req.After, when set, replayed).
func (c *Client) Subscribe(ctx context.Context, req apitype.StreamRequest) error {
	return c.Do(ctx, http.MethodPost, "/api/stream/subscribe", req, nil)
}

// Unsubscribe is POST /api/stream/unsubscribe.
func (c *Client) Unsubscribe(ctx context.Context, req apitype.StreamRequest) error {
	return c.Do(ctx, http.MethodPost, "/api/stream/unsubscribe", req, nil)
}
