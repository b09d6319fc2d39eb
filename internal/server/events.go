package server

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"

	"piweb/internal/catalog"
)

// onChange relays an index change to /api/events and, when someone follows
// that session, to its stream as entries_appended or session_rewritten.
func (s *Server) onChange(c Change) {
	var ev any
	switch c.Kind {
	case catalog.Removed:
		ev = map[string]any{"type": "session_removed", "id": c.Meta.Key, "path": c.Meta.Path}
	case catalog.Added:
		ev = map[string]any{"type": "session_added", "session": s.item(c.Meta)}
	default:
		ev = map[string]any{"type": "session_updated", "session": s.item(c.Meta)}
	}
	s.publishJSON(indexTopic, ev)
	s.tails.changed(c.Meta.Key)
}

// fileChanged wakes the tail of the session at path, if it is followed,
// as soon as the index saw the change.
func (s *Server) fileChanged(path string) {
	if m, found := s.cat.ByPath(path); found {
		s.tails.changed(m.Key)
	}
}

func (s *Server) publishJSON(topic string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.logf("encode event: %v", err)
		return
	}
	s.publish(topic, b)
}

// maxTailChunk is the most a single entries_appended event carries; a
// larger growth is announced as session_rewritten so the client reloads.
const maxTailChunk = 8 << 20

// tails follows the files of sessions that have SSE clients, turning
// growth into entries_appended events. One goroutine reads for all of
// them, so a burst of changes never blocks the index's watcher.
type tails struct {
	s    *Server
	work chan string

	mu    sync.Mutex
	files map[string]*tail
}

type tail struct {
	path    string
	fi      os.FileInfo
	off     int64
	partial []byte
	pending bool
	missing bool // the file was gone at the last read
	watched time.Time
}

func newTails(s *Server) *tails {
	t := &tails{s: s, work: make(chan string, 256), files: map[string]*tail{}}
	s.bg.Go(t.loop)
	return t
}

// watch starts following a session's file from its current end.
func (t *tails) watch(id, path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tl := t.files[id]; tl != nil && tl.path == path {
		tl.watched = time.Now()
		return
	}
	tl := &tail{path: path, watched: time.Now()}
	if fi, err := os.Stat(path); err == nil {
		tl.fi, tl.off = fi, fi.Size()
	}
	t.files[id] = tl
}

// changed queues a read of the session's file if it is followed.
func (t *tails) changed(id string) {
	t.mu.Lock()
	tl := t.files[id]
	if tl == nil || tl.pending {
		t.mu.Unlock()
		return
	}
	tl.pending = true
	t.mu.Unlock()
	select {
	case t.work <- id:
	default:
		t.mu.Lock()
		tl.pending = false // dropped; the next change retries
		t.mu.Unlock()
	}
}

func (t *tails) loop() {
	for {
		select {
		case <-t.s.shutdown:
			return
		case id := <-t.work:
			t.read(id)
		}
	}
}

// read turns the file's growth since the last read into one event.
func (t *tails) read(id string) {
	t.mu.Lock()
	tl := t.files[id]
	if tl == nil {
		t.mu.Unlock()
		return
	}
	tl.pending = false
	t.mu.Unlock()
	ev := tl.advance()
	if ev != nil {
		t.s.publishJSON(sessionTopic(id), ev)
	}
}

// advance reads new complete lines; it runs only on the tails goroutine.
func (tl *tail) advance() any {
	fi, err := os.Stat(tl.path)
	if err != nil {
		if tl.missing {
			return nil
		}
		// Deleted or moved by something other than piweb (piweb's own
		// delete says session_deleted and drops the tail first).
		tl.missing = true
		return map[string]any{"type": "session_missing"}
	}
	if tl.missing { // the file is back: the client reloads it
		tl.missing = false
		tl.fi, tl.off, tl.partial = fi, fi.Size(), nil
		return map[string]any{"type": "session_rewritten", "size": fi.Size()}
	}
	if tl.fi == nil || !os.SameFile(fi, tl.fi) || fi.Size() < tl.off || fi.Size()-tl.off > maxTailChunk {
		tl.fi, tl.off, tl.partial = fi, fi.Size(), nil
		return map[string]any{"type": "session_rewritten", "size": fi.Size()}
	}
	if fi.Size() == tl.off {
		return nil
	}
	f, err := os.Open(tl.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, fi.Size()-tl.off)
	n, _ := io.ReadFull(io.NewSectionReader(f, tl.off, int64(len(buf))), buf)
	tl.off += int64(n)
	tl.fi = fi
	data := append(tl.partial, buf[:n]...)
	cut := bytes.LastIndexByte(data, '\n') + 1
	tl.partial = append([]byte(nil), data[cut:]...)
	entries, leaf := rawLines(data[:cut])
	if len(entries) == 0 {
		return nil
	}
	return map[string]any{"type": "entries_appended", "entries": entries, "leaf": leaf, "size": tl.off - int64(len(tl.partial))}
}

// rawLines returns the JSON object lines of data, unchanged, and the id of
// the last one that has an id.
func rawLines(data []byte) ([]json.RawMessage, *string) {
	var out []json.RawMessage
	var leaf *string
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
			continue
		}
		out = append(out, json.RawMessage(bytes.Clone(line)))
		var e struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(line, &e) == nil && e.ID != "" && e.Type != "session" {
			id := e.ID
			leaf = &id
		}
	}
	return out, leaf
}

// drop stops following a session (piweb deleted it).
func (t *tails) drop(id string) {
	t.mu.Lock()
	delete(t.files, id)
	t.mu.Unlock()
}

// gc stops following sessions nobody has watched for a while.
func (t *tails) gc() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, tl := range t.files {
		if t.s.events.Subscribers(sessionTopic(id)) == 0 && time.Since(tl.watched) > 10*time.Minute {
			delete(t.files, id)
		}
	}
}
