package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/live"
)

// TestStreamTopics: one stream carries several topics, each with its
// hello, its replay after its own last id and its live events, and a
// topic unsubscribed stops arriving while the others continue.
func TestStreamTopics(t *testing.T) {
	r := newRig(t, Options{})
	dark := r.item("Dark theme")
	id := dark.ID
	st := "s/" + id                    // the page's name of the session's topic
	bt := live.SessionTopic(dark.Path) // the broker's: its file's
	first := r.srv.live.Publish(bt, []byte(`{"type":"agent_start"}`)).Seq
	r.srv.live.Publish(bt, []byte(`{"type":"message_start"}`))
	ctx := t.Context()
	api := r.api()
	stream, err := api.OpenStream(ctx)
	if err != nil || stream.ID == "" {
		t.Fatalf("stream %v: want the stream's id", err)
	}
	defer stream.Close()
	sid := stream.ID
	type frame struct {
		Topic, ID, Type string
	}
	read := func() frame {
		t.Helper()
		f, err := stream.Frame()
		if err != nil {
			t.Fatal(err)
		}
		var inner struct{ Type string }
		json.Unmarshal(f.Event, &inner)
		out := frame{Topic: f.Topic, Type: inner.Type}
		if f.ID != 0 {
			out.ID = fmt.Sprint(f.ID)
		}
		return out
	}
	subscribe := func(req apitype.StreamRequest) {
		t.Helper()
		if err := api.Subscribe(ctx, req); err != nil {
			t.Fatalf("subscribe %+v: %v", req, err)
		}
	}
	subscribe(apitype.StreamRequest{Stream: sid, Topic: live.IndexTopic})
	if f := read(); f != (frame{live.IndexTopic, "", "hello"}) {
		t.Errorf("index hello: %+v", f)
	}
	after := int64(first)
	subscribe(apitype.StreamRequest{Stream: sid, Topic: st, After: &after})
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
	if err := api.Unsubscribe(ctx, apitype.StreamRequest{Stream: sid, Topic: live.IndexTopic}); err != nil {
		t.Fatal(err)
	}
	r.srv.live.Publish(live.IndexTopic, []byte(`{"type":"y"}`))
	r.srv.live.Publish(bt, []byte(`{"type":"z"}`))
	if f := read(); f.Topic != st || f.Type != "z" {
		t.Errorf("after unsubscribing the index: %+v", f)
	}
	for _, c := range []struct {
		req    apitype.StreamRequest
		status int
	}{
		{apitype.StreamRequest{Stream: "nope", Topic: live.IndexTopic}, 404},
		{apitype.StreamRequest{Stream: sid, Topic: "f/" + id + "/../x"}, 400},
		{apitype.StreamRequest{Stream: sid, Topic: "s/missing"}, 404},
	} {
		wantErr(t, fmt.Sprint(c.req), api.Subscribe(ctx, c.req), c.status, "")
	}
}

// openStream opens a multiplexed stream through api for the rest of the
// test and returns its id.
func openStream(t *testing.T, api *client.Client) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := api.OpenStream(ctx)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s.ID
}
