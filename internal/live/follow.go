package live

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/index"
	"piweb/internal/jsjson"
)

// onChange relays an index change to /api/events.
func (l *Relay) onChange(c catalog.Change) {
	switch c.Kind {
	case catalog.Removed:
		l.PublishJSON(IndexTopic, sessionRemoved{Type: "session_removed", ID: c.Meta.Key, Path: c.Meta.Path})
	case catalog.Added:
		l.PublishJSON(IndexTopic, sessionChanged{Type: "session_added", Session: l.Item(c.Meta)})
	default:
		l.PublishJSON(IndexTopic, sessionChanged{Type: "session_updated", Session: l.Item(c.Meta)})
	}
}

// follows turns the index's file events of sessions that have SSE clients
// into their streams' entries_appended, session_missing and
// session_rewritten. The appended lines are the ones the index read (no
// second read of the file): each follow knows the offset its clients'
// view reaches, so an event is never applied twice, and a gap (an event
// missed) makes the clients reload.
type follows struct {
	mu sync.Mutex
	m  map[string]*follow // by session id
}

type follow struct {
	path    string
	end     int64 // the file offset the clients' view reaches
	missing bool  // the file was gone at the last event
	watched time.Time
	// loading is set while the hello's parse runs (outside mu); the
	// file's events meanwhile wait in pending, applied from its end.
	loading bool
	pending []index.Event
}

// publish sends an event to a topic's clients (Relay.PublishJSON).
type publish func(topic string, v any)

// watch follows a session's file from end, the size of the parse its
// hello describes, which load returns. load runs outside the follows'
// lock (a huge session's parse would stall every session's appends, and
// the file events behind them could cut the follows off): the file's
// events meanwhile are kept, and applied from the parse's end once it is
// known, so none slips between the parse and the follow.
func (f *follows) watch(id, path string, load func() int64, pub publish) {
	f.mu.Lock()
	if fl := f.m[id]; fl != nil && fl.path == path {
		fl.watched = time.Now()
		f.mu.Unlock()
		return
	}
	fl := &follow{path: path, watched: time.Now(), loading: true}
	f.m[id] = fl
	f.mu.Unlock()
	end := load()
	f.mu.Lock()
	defer f.mu.Unlock()
	fl.loading = false
	if fl.end >= 0 { // else the events were lost meanwhile: the next one reloads
		fl.end = end
	}
	for _, ev := range fl.pending {
		if out := fl.next(ev); out != nil && f.m[id] == fl {
			pub(SessionTopic(fl.path), out)
		}
	}
	fl.pending = nil
}

// drop stops following a session (piweb deleted it).
func (f *follows) drop(id string) {
	f.mu.Lock()
	delete(f.m, id)
	f.mu.Unlock()
}

// onFileEvent hands a file's growth to the worker's check for other
// writers and to the sessions that follow the file.
func (l *Relay) onFileEvent(ev index.Event) {
	if ev.Path == "" {
		return // an update of the index alone (search text): no file changed
	}
	if len(ev.Lines) > 0 {
		l.agent.FileGrew(ev.Path, ev.From, ev.Lines)
	}
	l.follows.apply(ev, l.PublishJSON)
}

// lost makes every follow's next event a reload.
func (f *follows) lost() {
	f.mu.Lock()
	for _, fl := range f.m {
		fl.end = -1
	}
	f.mu.Unlock()
}

// apply turns one file event into the events of the sessions that follow
// the file.
func (f *follows) apply(ev index.Event, pub publish) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fl := range f.m {
		if fl.path != ev.Path {
			continue
		}
		if fl.loading {
			fl.pending = append(fl.pending, ev)
		} else if out := fl.next(ev); out != nil {
			pub(SessionTopic(fl.path), out)
		}
	}
}

// next is what the clients of fl are told about ev, or nil.
func (fl *follow) next(ev index.Event) any {
	switch {
	case ev.Problem != "":
		return nil
	case ev.Removed:
		if fl.missing {
			return nil
		}
		// Deleted or moved by something other than piweb (piweb's own
		// delete says session_deleted and drops the follow first).
		fl.missing = true
		return eventType{Type: "session_missing"}
	case fl.missing || ev.Reset || ev.LinesOver || fl.end < 0 || ev.From > fl.end:
		fl.missing, fl.end = false, ev.End
		return sessionRewritten{Type: "session_rewritten", Size: ev.End}
	case ev.End <= fl.end || len(ev.Lines) == 0:
		return nil
	}
	data := ev.Lines[lineStart(ev.Lines, fl.end-ev.From):]
	fl.end = ev.End
	entries, leaf := rawLines(data)
	if len(entries) == 0 {
		return nil
	}
	return entriesAppended{Type: "entries_appended", Entries: entries, Leaf: leaf, Size: ev.End}
}

// lineStart is the first line start in b at or after i.
func lineStart(b []byte, i int64) int {
	if i <= 0 {
		return 0
	}
	if b[i-1] == '\n' {
		return int(i)
	}
	return int(i) + bytes.IndexByte(b[i:], '\n') + 1
}

// rawLines returns the JSON object lines of data (complete lines, which
// the index validated as pi reads them), unchanged, and the id of the last
// entry that has one.
func rawLines(data []byte) ([]json.RawMessage, *string) {
	var out []json.RawMessage
	var leaf *string
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' || !jsjson.Valid(line) {
			continue
		}
		out = append(out, json.RawMessage(line))
		typ, _ := jsjson.DecodeString(jsjson.Field(line, "type"))
		if id, _ := jsjson.DecodeString(jsjson.Field(line, "id")); id != "" && typ != "session" {
			leaf = &id
		}
	}
	return out, leaf
}

// gc stops following sessions nobody has watched for a while.
func (f *follows) gc(l *Relay) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, fl := range f.m {
		if l.events.Subscribers(SessionTopic(fl.path)) == 0 && time.Since(fl.watched) > l.opts.FollowIdle {
			delete(f.m, id)
		}
	}
}
