package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"piweb/internal/live"
	"strings"
	"testing"
)

// TestStreamTopics: one stream carries several topics, each with its
// hello, its replay after its own last id and its live events, and a
// topic unsubscribed stops arriving while the others continue.
func TestStreamTopics(t *testing.T) {
	r := newRig(t, Options{})
	id := r.find("Dark theme")["id"].(string)
	st := "s/" + id                                                // the page's name of the session's topic
	bt := live.SessionTopic(r.find("Dark theme")["path"].(string)) // the broker's: its file's
	first := r.srv.live.Publish(bt, []byte(`{"type":"agent_start"}`)).Seq
	r.srv.live.Publish(bt, []byte(`{"type":"message_start"}`))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, _ := sseClient(ctx, t, r.ts.URL+"/api/stream", "")
	hello := next(t, ch)
	sid, _ := hello.data["id"].(string)
	if hello.data["type"] != "stream" || sid == "" {
		t.Fatalf("first event %+v, want the stream's id", hello.data)
	}
	type frame struct {
		Topic, ID, Type string
	}
	read := func() frame {
		t.Helper()
		ev := next(t, ch)
		inner, _ := ev.data["event"].(map[string]any)
		f := frame{Topic: fmt.Sprint(ev.data["topic"]), Type: fmt.Sprint(inner["type"])}
		if id, found := ev.data["id"]; found {
			f.ID = fmt.Sprint(uint64(id.(float64)))
		}
		return f
	}
	r.json("POST", "/api/stream/subscribe", map[string]any{"stream": sid, "topic": live.IndexTopic}, 200)
	if f := read(); f != (frame{live.IndexTopic, "", "hello"}) {
		t.Errorf("index hello: %+v", f)
	}
	r.json("POST", "/api/stream/subscribe", map[string]any{"stream": sid, "topic": st, "after": first}, 200)
	for i, want := range []string{"hello", "replay", "message_start"} {
		if f := read(); f.Topic != st || f.Type != want {
			t.Errorf("session event %d: %+v, want %s", i, f, want)
		}
	}
	r.srv.live.Publish(live.IndexTopic, []byte(`{"type":"x"}`))
	end := r.srv.live.Publish(bt, []byte(`{"type":"agent_end"}`)).Seq
	if f := read(); f.Topic != live.IndexTopic || f.Type != "x" {
		t.Errorf("live index event: %+v", f)
	}
	if f := read(); f != (frame{st, fmt.Sprint(end), "agent_end"}) {
		t.Errorf("live session event: %+v", f)
	}
	r.json("POST", "/api/stream/unsubscribe", map[string]any{"stream": sid, "topic": live.IndexTopic}, 200)
	r.srv.live.Publish(live.IndexTopic, []byte(`{"type":"y"}`))
	r.srv.live.Publish(bt, []byte(`{"type":"z"}`))
	if f := read(); f.Topic != st || f.Type != "z" {
		t.Errorf("after unsubscribing the index: %+v", f)
	}
	r.json("POST", "/api/stream/subscribe", map[string]any{"stream": "nope", "topic": live.IndexTopic}, 404)
	r.json("POST", "/api/stream/subscribe", map[string]any{"stream": sid, "topic": "f/" + id + "/../x"}, 400)
	r.json("POST", "/api/stream/subscribe", map[string]any{"stream": sid, "topic": "s/missing"}, 404)
}

// openStream opens a multiplexed stream for the rest of the test and
// returns its id.
func openStream(t *testing.T, base string, hdr ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/stream", nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	var first struct{ ID string }
	if err != nil || json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &first) != nil || first.ID == "" {
		t.Fatalf("stream's first line %q: %v", line, err)
	}
	return first.ID
}
