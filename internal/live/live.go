// Package live keeps the broker's live topics that the server streams: the
// catalog's changes on the index topic, a session file's growth on its
// topic (one follow per watched session, fed by the index's events), the
// workers' running state on the index topic, and the topics a page may
// subscribe to (ResolveTopic). It speaks no HTTP: the server subscribes
// pages to its topics. What a worker's event means for attention is
// internal/attention's, the pollers of a session's folders and git state
// are cwdfs's and gitx's.
package live

import (
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"time"

	"piweb/internal/agent"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/cwdfs"
	"piweb/internal/gitx"
	"piweb/internal/opt"
	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// Agent is what the relay needs of the pi adapter (the server's Agent).
type Agent interface {
	// Running reports whether the worker of the session file at path is busy.
	Running(path string) bool
	// State returns the worker's phase ("" when none runs).
	State(path string) string
	// FileGrew hands the file's live worker the lines appended from offset from.
	FileGrew(path string, from int64, lines []byte)
}

// Options configures a Relay. Every field but the timings, Attention and
// Log is required. Timing lives here, never in globals, so tests can
// shorten it and run in parallel.
type Options struct {
	Catalog *catalog.Catalog
	Agent   Agent
	Events  *broker.Broker[broker.Event]
	// Cache is the parse cache a session's hello reads its leaf from.
	Cache *sessionstore.Cache
	// Files and Git poll the folders and files, and the git state, that
	// pages follow (topics f/<id>/<path> and g/<id>).
	Files *cwdfs.Pollers
	Git   *gitx.Pollers
	// Attention hears what a worker's event means for the attention of a
	// session (its API id, agent.AttentionOf's kind and title); nil: none.
	Attention func(id, kind, title string)
	// Janitor (0: 1 min) is how often the topics nobody follows are
	// collected, and the follows and pending sessions that ended dropped.
	Janitor time.Duration
	// FollowIdle (0: 10 min) is how long a session file stays followed
	// after its topic's last subscriber left.
	FollowIdle time.Duration
	// Log gets the relay's errors; nil discards them.
	Log *slog.Logger
}

// Relay runs the live topics until Close.
type Relay struct {
	opts    Options
	cat     *catalog.Catalog
	agent   Agent
	events  *broker.Broker[broker.Event]
	follows follows
	pending pending
	runGen  atomic.Uint64 // bumped when a worker's running state may change
	bg      *broker.Group // the relays and the janitor
}

// New starts relaying the catalog's changes and file events and the
// workers' notes.
func New(o Options) *Relay {
	o.Janitor = positiveOr(o.Janitor, time.Minute)
	o.FollowIdle = positiveOr(o.FollowIdle, 10*time.Minute)
	opt.Log(&o.Log)
	l := &Relay{opts: o, cat: o.Catalog, agent: o.Agent, events: o.Events, bg: broker.NewGroup()}
	l.follows.m = map[string]*follow{}
	l.pending.m = map[string]catalog.Meta{}
	// Subscribed here, not in the goroutines: a change made as soon as
	// New returns (a rename answered before a goroutine first ran) must
	// reach the topics.
	changes, workers := l.cat.Changes(), l.events.NewSub()
	l.bg.Go(func() { relay(l.bg.Done(), l.changesSource(changes)) })
	if ix := l.cat.Index(); ix != nil {
		files := ix.Subscribe()
		l.bg.Go(func() { relay(l.bg.Done(), l.filesSource(ix, files)) })
	}
	if workers.Follow(agent.WorkersTopic) == nil {
		l.bg.Go(func() { relay(l.bg.Done(), l.workersSource(workers)) })
	} else {
		workers.Close()
	}
	l.bg.Go(func() { l.bg.Tick(l.opts.Janitor, l.janitor) })
	return l
}

// positiveOr is d, or def when d is not positive.
func positiveOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Close stops the relays and the janitor and waits for them (the pollers
// are their owners' to close: the App does).
func (l *Relay) Close() {
	l.bg.Close()
}

// janitor frees replay buffers of topics nobody listens to any more.
func (l *Relay) janitor() bool {
	l.events.Collect()
	l.follows.gc(l)
	l.pending.gc(l)
	return true
}

// Item builds the JSON form of m, resolving the parent's id through the
// catalog.
func (l *Relay) Item(m catalog.Meta) catalog.Item { return catalog.ItemOf(m, l.Links(m)) }

// Links are what m's item says beyond its metadata: whether its worker
// runs, its parent's API id.
func (l *Relay) Links(m catalog.Meta) catalog.Links {
	lk := catalog.Links{Running: l.agent.Running(m.Path)}
	if pm, ok := l.cat.Parent(m); ok {
		lk.ParentID = &pm.Key
	}
	return lk
}

// RunGen changes whenever a worker's running state may have changed (a
// listing's items say whether each runs).
func (l *Relay) RunGen() uint64 { return l.runGen.Load() }

// Publish hands one JSON object to the topic's subscribers and keeps it
// for replay.
func (l *Relay) Publish(topic string, data []byte) broker.Event {
	return l.events.Publish(topic, broker.Event{Raw: data})
}

// PublishJSON publishes v encoded.
func (l *Relay) PublishJSON(topic string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		l.opts.Log.Error("live: encode event", "err", err)
		return
	}
	l.Publish(topic, b)
}

// Created remembers a session piweb just created, whose file pi writes
// only with its first answer: it is found (Pending) and followed before
// the index lists it.
func (l *Relay) Created(m catalog.Meta) {
	l.pending.add(m)
	l.WorkerChanged(SessionTopic(m.Path)) // its first state changes came before it was pending
}

// Pending finds a created session the index does not list yet.
func (l *Relay) Pending(id string) (catalog.Meta, bool) { return l.pending.lookup(id) }

// Deleting stops following a session piweb is deleting: its stream says
// session_deleted (Deleted), not session_missing.
func (l *Relay) Deleting(id string) { l.follows.drop(id) }

// Deleted tells the session's clients that piweb deleted it.
func (l *Relay) Deleted(path string) {
	l.PublishJSON(SessionTopic(path), eventType{Type: "session_deleted"})
}

// SessionHello starts following the session's file and describes it as
// it is now. It runs after the client subscribed, so every append after
// the leaf it reports reaches the client as an event (the web client
// re-reads its tail when the leaf differs from what it loaded). Its now,
// on the clock of the broker that stamped the replay event's times, lets
// the client read those times on its own clock.
func (l *Relay) SessionHello(m catalog.Meta) []byte {
	hello := sessionHello{Type: "hello", Session: l.Item(m), Worker: l.agent.State(m.Path), Size: m.Size,
		Now: l.events.Now().UnixMilli(), ReplayFrom: l.turnStart(SessionTopic(m.Path))}
	l.follows.watch(m.Key, m.Path, func() int64 {
		if sess, err := l.opts.Cache.Load(m.Path); err == nil {
			hello.Leaf, hello.Size = entryID(sess.Leaf()), sess.Size
		}
		return hello.Size
	}, l.PublishJSON)
	b, _ := json.Marshal(hello)
	return b
}

func entryID(e *pisession.Entry) *string {
	if e == nil || e.ID == "" {
		return nil
	}
	return &e.ID
}
