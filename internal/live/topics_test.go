package live

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
	"piweb/internal/gitx"
	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
)

// TestResolveTopic: the topic names a page may send, the broker topic
// each reads, and the names refused (unknown kinds, unclean or escaping
// paths, the lookup's own errors as they are).
func TestResolveTopic(t *testing.T) {
	cwd := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cwd, "sub", "a.txt"), []byte("a"), 0o644)
	errLookup := errors.New("no such session")
	m := catalog.Meta{ID: "abc", Key: "abc", Path: filepath.Join(cwd, "s.jsonl"), Cwd: cwd}
	lookup := func(id string) (catalog.Meta, error) {
		if id != "abc" {
			return catalog.Meta{}, errLookup
		}
		return m, nil
	}
	l := &Relay{}
	for _, c := range []struct {
		name, topic string
		timed       bool
		err         error
	}{
		{"index", IndexTopic, false, nil},
		{"s/abc", SessionTopic(m.Path), true, nil},
		{"g/abc", "g/abc", false, nil},
		{"f/abc/", "f/abc/", false, nil},
		{"f/abc/sub", "f/abc/sub", false, nil},
		{"f/abc/sub/a.txt", "f/abc/sub/a.txt", false, nil},
		{"s/nope", "", false, errLookup},
		{"f/nope/sub", "", false, errLookup},
		{"f/abc/sub/", "", false, ErrUncleanPath},
		{"f/abc/sub/../sub", "", false, ErrUncleanPath},
		{"f/abc/../x", "", false, ErrUncleanPath},
		{"f/abc//sub", "", false, ErrUncleanPath},
		{"x/abc", "", false, ErrUnknownTopic},
		{"s", "", false, ErrUnknownTopic},
		{"", "", false, ErrUnknownTopic},
	} {
		got, err := l.ResolveTopic(c.name, lookup)
		if !errors.Is(err, c.err) {
			t.Errorf("%q: error %v, want %v", c.name, err, c.err)
			continue
		}
		if got.Name != c.topic || got.Timed != c.timed || (err == nil) != (got.Hello != nil) {
			t.Errorf("%q: topic %q timed %v, want %q timed %v", c.name, got.Name, got.Timed, c.topic, c.timed)
		}
	}
	if hello, _ := l.ResolveTopic(IndexTopic, lookup); string(hello.Hello()) != `{"type":"hello"}` {
		t.Errorf("index hello %s", hello.Hello())
	}
	var fe *errs.Error
	if _, err := l.ResolveTopic("f/abc/missing", lookup); !errors.As(err, &fe) || fe.Kind != errs.NotFound {
		t.Errorf("a missing path: %v, want cwdfs's not found", err)
	}
}

// noAgent is an Agent with no workers.
type noAgent struct{}

func (noAgent) Running(string) bool            { return false }
func (noAgent) State(string) string            { return "" }
func (noAgent) FileGrew(string, int64, []byte) {}

func newRelay(t *testing.T, o Options) *Relay {
	o.Catalog, o.Agent = catalog.Static(), noAgent{}
	if o.Events == nil {
		o.Events = broker.New[broker.Event](broker.Options{})
	}
	o.Cache, o.Files, o.Git = sessionstore.NewCache(2, 1<<20), cwdfs.NewPollers(o.Events, 0), gitx.NewPollers(gitx.New(gitx.Options{}), o.Events, 0)
	l := New(o)
	t.Cleanup(func() { l.Close(); o.Files.Close(); o.Git.Close(); o.Events.Close() })
	return l
}

// TestTimingOptions: zero timings take the defaults; the janitor runs at
// Options.Janitor and drops a follow nobody watched for FollowIdle.
func TestTimingOptions(t *testing.T) {
	d := newRelay(t, Options{})
	want := Options{Janitor: time.Minute, FollowIdle: 10 * time.Minute}
	if o := d.opts; o.Git.Every() != 2*time.Second || o.Files.Every() != time.Second || o.Janitor != want.Janitor || o.FollowIdle != want.FollowIdle {
		t.Errorf("defaults %v %v %v %v", o.Git.Every(), o.Files.Every(), o.Janitor, o.FollowIdle)
	}
	l := newRelay(t, Options{Janitor: time.Millisecond, FollowIdle: time.Millisecond})
	l.SessionHello(catalog.Meta{ID: "abc", Key: "abc", Path: filepath.Join(t.TempDir(), "s.jsonl")})
	testkit.Eventually(t, func() bool {
		l.follows.mu.Lock()
		defer l.follows.mu.Unlock()
		return len(l.follows.m) == 0
	}, 10*time.Second, "the janitor to drop the idle follow")
}

// TestHelloNowIsTheBrokers: a session's hello tells the time on the clock
// of the broker that stamps the replayed events, so that a page reads
// their times on its own clock whatever clock the broker has.
func TestHelloNowIsTheBrokers(t *testing.T) {
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	l := newRelay(t, Options{Events: broker.New[broker.Event](broker.Options{Now: func() time.Time { return at }})})
	var hello struct{ Now int64 }
	if err := json.Unmarshal(l.SessionHello(catalog.Meta{ID: "abc", Key: "abc", Path: filepath.Join(t.TempDir(), "s.jsonl")}), &hello); err != nil {
		t.Fatal(err)
	}
	if hello.Now != at.UnixMilli() {
		t.Errorf("hello now %d, want the broker's %d", hello.Now, at.UnixMilli())
	}
}
