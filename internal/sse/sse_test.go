package sse

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"piweb/internal/broker"
	"piweb/internal/testkit"
)

func TestParseLastID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"", -1}, {"0", 0}, {"42", 42}, {"-3", 1}, {"junk", 1}, {"99999999999999999999", 1}} {
		if got := ParseLastID(c.in); got != c.want {
			t.Errorf("ParseLastID(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// rig is a broker, Streams over it and an HTTP server whose /one serves
// topic "t" (or ?topic) and whose /mux serves a multiplexed stream.
type rig struct {
	b  *broker.Broker[broker.Event]
	x  *Streams
	ts *httptest.Server
}

func newRig(t *testing.T, opts Options) *rig {
	b := broker.New[broker.Event](broker.Options{Base: 100})
	x := New(b, opts)
	mux := http.NewServeMux()
	mux.HandleFunc("/one", func(w http.ResponseWriter, r *http.Request) {
		x.Serve(w, r, Topic{Name: cmp.Or(r.URL.Query().Get("topic"), "t"), Hello: hello, Timed: r.URL.Query().Has("timed")})
	})
	mux.HandleFunc("/mux", func(w http.ResponseWriter, r *http.Request) { x.ServeMux(w, r) })
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { x.Close(); ts.Close(); b.Close() })
	return &rig{b: b, x: x, ts: ts}
}

func hello() []byte { return []byte(`{"type":"hello"}`) }

func (r *rig) publish(topic, raw string) uint64 {
	return r.b.Publish(topic, broker.Event{Raw: []byte(raw)}).Seq
}

// lines opens url (with Last-Event-ID last unless empty) and returns a
// function giving the stream's next non-empty line.
func lines(t *testing.T, url, last string) func() string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	br := bufio.NewReader(resp.Body)
	return func() string {
		t.Helper()
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended: %v", err)
			}
			if l = strings.TrimSuffix(l, "\n"); l != "" {
				return l
			}
		}
	}
}

func take(next func() string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

// TestServeResume: a single-topic stream gives hello, then the replay
// after Last-Event-ID with ids, a reset numbered with the topic's last id
// for an id it does not know, and live events after.
func TestServeResume(t *testing.T) {
	r := newRig(t, Options{})
	for _, c := range []struct {
		name string
		last func(first uint64) string
		want func(first uint64) []string
	}{
		{"replay", func(f uint64) string { return itoa(f) }, func(f uint64) []string {
			return []string{"id: " + itoa(f+1), `data: {"n":2}`}
		}},
		{"everything kept", func(uint64) string { return "0" }, func(f uint64) []string {
			return []string{"id: " + itoa(f), `data: {"n":1}`, "id: " + itoa(f+1), `data: {"n":2}`}
		}},
		{"unknown id", func(uint64) string { return "junk" }, func(f uint64) []string {
			return []string{"id: " + itoa(f+1), `data: {"type":"reset"}`}
		}},
		{"none", func(uint64) string { return "" }, func(uint64) []string { return nil }},
	} {
		topic := strings.ReplaceAll(c.name, " ", "-")
		first := r.publish(topic, `{"n":1}`)
		r.publish(topic, `{"n":2}`)
		next := lines(t, r.ts.URL+"/one?topic="+topic, c.last(first))
		want := append([]string{`data: {"type":"hello"}`}, c.want(first)...)
		if diff := gocmp.Diff(want, take(next, len(want))); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", c.name, diff)
		}
		live := r.publish(topic, `{"live":true}`)
		if got := take(next, 2); got[1] != `data: {"live":true}` || got[0] != "id: "+itoa(live) {
			t.Errorf("%s: live event %q", c.name, got)
		}
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestServeTimed: a timed topic's replay is preceded by the replay event
// giving each replayed event's id and arrival time.
func TestServeTimed(t *testing.T) {
	r := newRig(t, Options{})
	seq := r.publish("t", `{"n":1}`)
	var at int64
	r.b.Retained("t", func(e broker.Event) bool { at = e.At.UnixMilli(); return false })
	next := lines(t, r.ts.URL+"/one?timed", "0")
	want := []string{`data: {"type":"hello"}`, `data: {"type":"replay","times":[[` + itoa(seq) + "," + itoa(uint64(at)) + `]]}`, "id: " + itoa(seq), `data: {"n":1}`}
	if diff := gocmp.Diff(want, take(next, len(want))); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestHeartbeat: an idle stream gets comment lines.
func TestHeartbeat(t *testing.T) {
	r := newRig(t, Options{Heartbeat: 10 * time.Millisecond})
	next := lines(t, r.ts.URL+"/one", "")
	if got := take(next, 2); got[1] != ": ping" {
		t.Errorf("after hello: %q, want a ping", got[1])
	}
}

// TestMux: topics are added to and removed from a multiplexed stream by its
// id, each under the page's name for it; an unknown stream is
// ErrNoStream, and Close ends the stream.
func TestMux(t *testing.T) {
	r := newRig(t, Options{})
	ctx := context.Background()
	next := lines(t, r.ts.URL+"/mux", "")
	first := next()
	id := strings.TrimSuffix(strings.TrimPrefix(first, `data: {"type":"stream","id":"`), `"}`)
	if len(id) != 32 {
		t.Fatalf("first line %q", first)
	}
	a := r.publish("a", `{"n":1}`)
	if err := r.x.Subscribe(ctx, id, "page-a", Topic{Name: "a", Hello: hello}, int64(a-1)); err != nil {
		t.Fatal(err)
	}
	if err := r.x.Subscribe(ctx, id, "page-b", Topic{Name: "b", Hello: hello}, -1); err != nil {
		t.Fatal(err)
	}
	b := r.publish("b", `{"n":2}`)
	want := []string{
		`data: {"topic":"page-a","event":{"type":"hello"}}`,
		`data: {"topic":"page-a","id":` + itoa(a) + `,"event":{"n":1}}`,
		`data: {"topic":"page-b","event":{"type":"hello"}}`,
		`data: {"topic":"page-b","id":` + itoa(b) + `,"event":{"n":2}}`,
	}
	if diff := gocmp.Diff(want, take(next, len(want))); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if err := r.x.Unsubscribe(ctx, id, "page-a"); err != nil {
		t.Fatal(err)
	}
	r.publish("a", `{"n":3}`)
	b = r.publish("b", `{"n":4}`)
	if got := next(); got != `data: {"topic":"page-b","id":`+itoa(b)+`,"event":{"n":4}}` {
		t.Errorf("after unsubscribing a: %q", got)
	}
	if err := r.x.Subscribe(ctx, "nope", "x", Topic{Name: "x", Hello: hello}, -1); !errors.Is(err, ErrNoStream) || r.x.Has("nope") {
		t.Errorf("unknown stream: %v", err)
	}
	r.x.Close()
	testkit.Eventually(t, func() bool { return !r.x.Has(id) }, 10*time.Second, "the stream to end on Close")
	if err := r.x.Subscribe(ctx, id, "x", Topic{Name: "x", Hello: hello}, -1); !errors.Is(err, ErrNoStream) {
		t.Errorf("after Close: %v", err)
	}
}

// gated is a ResponseWriter whose writes wait while it is shut.
type gated struct {
	http.ResponseWriter
	mu     sync.Mutex
	open   chan struct{}
	writes int
}

func (g *gated) Write(b []byte) (int, error) {
	g.mu.Lock()
	open := g.open
	g.writes++
	g.mu.Unlock()
	<-open
	return g.ResponseWriter.Write(b)
}

func (g *gated) Flush() {}

func (g *gated) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writes
}

// TestSlowSubscriber: a client that does not take its events while more
// than the broker's queue arrive is cut off: its stream ends after what
// was queued, and it resumes with Last-Event-ID.
func TestSlowSubscriber(t *testing.T) {
	b := broker.New[broker.Event](broker.Options{QueueEvents: 4})
	defer b.Close()
	x := New(b, Options{Heartbeat: time.Hour})
	defer x.Close()
	rec := httptest.NewRecorder()
	open := make(chan struct{})
	close(open)
	g := &gated{ResponseWriter: rec, open: open}
	done := make(chan error, 1)
	go func() {
		req := httptest.NewRequest("GET", "/one", nil)
		done <- x.Serve(g, req, Topic{Name: "t", Hello: hello})
	}()
	testkit.Eventually(t, func() bool { return g.count() == 1 && b.Subscribers("t") == 1 }, 10*time.Second, "hello written")
	g.mu.Lock()
	g.open = make(chan struct{}) // shut: the next flush waits
	g.mu.Unlock()
	b.Publish("t", broker.Event{Raw: []byte(`{"n":0}`)})
	testkit.Eventually(t, func() bool { return g.count() == 2 }, 10*time.Second, "the first event's flush to wait")
	for n := 1; n <= 10; n++ {
		b.Publish("t", broker.Event{Raw: []byte(`{"n":1}`)})
	}
	if b.Subscribers("t") != 0 {
		t.Fatal("the slow subscriber was not cut off")
	}
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
	if err := testkit.Recv(t, done, 10*time.Second, "the stream's end"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(rec.Body.String(), "data: "); n != 1+1+4 {
		t.Errorf("%d events written, want hello, the first event and the 4 queued:\n%s", n, rec.Body.String())
	}
}
