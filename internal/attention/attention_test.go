package attention

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"piweb/internal/agent"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/naming"
	"piweb/internal/own"
	"piweb/internal/push"
	"piweb/internal/push/pushtest"
	"piweb/internal/testkit"
	"piweb/pisession"
)

func TestAttentionRepeated(t *testing.T) {
	var r recentAttention
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		key  string
		at   time.Duration
		want bool
	}{{"a done", 0, false}, {"a done", 100 * time.Millisecond, true}, {"a failed", 100 * time.Millisecond, false}, {"a done", 5 * time.Second, false}} {
		if got := r.repeated(c.key, t0.Add(c.at)); got != c.want {
			t.Errorf("%s at %v: %v, want %v", c.key, c.at, got, c.want)
		}
	}
}

// TestAttentionNewRun: a run that starts and ends within the window after
// the last one's end is announced all the same (TestLivePush's quick
// second run was not pushed).
func TestAttentionNewRun(t *testing.T) {
	var r recentAttention
	t0 := time.Unix(1000, 0)
	if r.repeated("a done", t0) {
		t.Fatal("first")
	}
	r.forget("a")
	if r.repeated("a done", t0.Add(200*time.Millisecond)) {
		t.Error("the end of a new run counted as a repeat")
	}
	if !r.repeated("a done", t0.Add(300*time.Millisecond)) {
		t.Error("a repeat of that end not caught")
	}
}

// TestPushHonoursMute: a muted session, or every session under the global
// mute, is not pushed to any device; unmuted, it is.
func TestPushHonoursMute(t *testing.T) {
	p, err := push.Open(t.TempDir(), push.Options{Log: testkit.Log(t), AllowLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	marks, err := own.OpenAttention("", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	n := New(Options{Push: p, Marks: marks, Catalog: catalog.Static()})
	pushed := func(id string) bool {
		_, send := n.pushMessage(Event{Type: "attention", ID: id, Kind: "done"})
		return send
	}
	if !pushed("a") {
		t.Fatal("an unmuted session is not pushed")
	}
	marks.SetMuted("a", true)
	if pushed("a") || !pushed("b") {
		t.Errorf("after muting a: a pushed %v, b pushed %v", pushed("a"), pushed("b"))
	}
	marks.SetGlobalMute(true)
	if pushed("b") {
		t.Error("the global mute does not stop the push")
	}
	marks.SetGlobalMute(false)
	marks.SetMuted("a", false)
	if !pushed("a") {
		t.Error("an unmuted session is still not pushed")
	}
	if _, send := n.pushMessage(Event{ID: "a", Kind: "resumed"}); send {
		t.Error("resumed is pushed")
	}
}

// TestPushBodyCut: a long name is cut at a character, never inside one.
func TestPushBodyCut(t *testing.T) {
	got := pushBody(strings.Repeat("é", 200), "which one?")
	if !utf8.ValidString(got) || got != strings.Repeat("é", 120)+"…: which one?" {
		t.Errorf("body %q", got)
	}
	if got := pushBody("short", ""); got != "short" {
		t.Errorf("body %q", got)
	}
}

// TestPushName: a push names its session by the event's name, else (not
// listed, no naming service, or listed before its first message) by its
// id; its body never starts with ": ".
func TestPushName(t *testing.T) {
	n := New(Options{Push: &push.Service{}, Catalog: catalog.Static()})
	for _, c := range []struct{ name, id, title, want string }{
		{"fix the build", "11111111-1111-4111-8111-111111111111", "quota", "fix the build: quota"},
		{"", "22222222-2222-4222-8222-222222222222", "quota", "session 22222222: quota"},
		{pisession.NoMessages, "33333333-3333-4333-8333-333333333333", "", "session 33333333"},
		{"", "short", "", "session short"},
	} {
		msg, _ := n.pushMessage(Event{ID: c.id, Kind: "failed", Name: c.name, Title: c.title})
		if msg.Body != c.want {
			t.Errorf("name %q, id %q: body %q, want %q", c.name, c.id, msg.Body, c.want)
		}
	}
}

// TestAttentionNames: an event names its session by the listing (name,
// else first message), else, for a session piweb just created and not
// listed yet, by the message it was created with.
func TestAttentionNames(t *testing.T) {
	cat := catalog.Static()
	names := naming.New(naming.Options{Catalog: cat})
	n := New(Options{Catalog: cat, Names: names})
	cat.Put(catalog.Meta{ID: "named", Key: "named", Path: "/s/a.jsonl", Name: "the name", FirstMessage: "first"})
	cat.Put(catalog.Meta{ID: "plain", Key: "plain", Path: "/s/b.jsonl", FirstMessage: "first words"})
	names.Created("new", "/s/c.jsonl", "attention please")
	for id, want := range map[string]string{"named": "the name", "plain": "first words", "new": "attention please", "unknown": ""} {
		if got := n.nameOf(id); got != want {
			t.Errorf("nameOf(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestPushAsPublished: a worker's note is pushed when it is published on
// the workers topic, not when the workers' relay hands it over (here no
// relay reads the topic at all, as while one is cut off and the note is
// evicted before it resumes): a listed session by its id, a session piweb
// created and the index does not list yet by the id in its file's name.
func TestPushAsPublished(t *testing.T) {
	p, err := push.Open(t.TempDir(), push.Options{Log: testkit.Log(t), AllowLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := pushtest.Subscribed(t, p, "/sub/1")
	cat := catalog.Static()
	listed := "/home/u/.pi/agent/sessions/--p--/2026-01-01T00-00-00-000Z_11111111-1111-4111-8111-111111111111.jsonl"
	cat.Put(catalog.Meta{ID: "11111111-1111-4111-8111-111111111111", Path: listed, Cwd: "/p", Name: "listed one"})
	m, _ := cat.ByPath(listed)
	created := "/home/u/.pi/agent/sessions/--p--/2026-01-01T00-00-01-000Z_22222222-2222-4222-8222-222222222222.jsonl"
	events := agent.SharedBroker(0, nil)
	n := New(Options{Catalog: cat, Events: events, Push: p})
	for _, note := range []agent.WorkerNote{
		{Topic: listed, Type: agent.EvAgentEnd, Attention: "done"},
		{Topic: created, Type: agent.EvAgentEnd, Attention: "failed", Title: "quota"},
		{Topic: listed, Type: agent.EvState}, // no attention: not pushed
	} {
		events.Publish(agent.WorkersTopic, broker.Event{Type: "worker_changed", Value: note})
	}
	n.Close() // waits for the pushes
	var got []string
	for _, msg := range svc.Messages(t) {
		got = append(got, msg.Title+" "+msg.URL+" "+msg.Body)
	}
	slices.Sort(got)
	want := []string{"pi failed /s/22222222-2222-4222-8222-222222222222 session 22222222: quota", "pi finished /s/" + m.Key + " listed one"}
	if !slices.Equal(got, want) {
		t.Errorf("pushed %q, want %q", got, want)
	}
}
