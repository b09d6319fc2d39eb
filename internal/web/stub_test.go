package web

// A stand-in for piweb's API (docs/api.md), built on the session package,
// for testing the app before and apart from internal/server. It implements
// only what the app reads, with the documented shapes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"piweb/internal/session"
)

type stubAPI struct {
	agentDir string
	mu       sync.Mutex
	trash    map[string]string // trash id -> original path
}

func newStub(agentDir string) *stubAPI {
	return &stubAPI{agentDir: agentDir, trash: map[string]string{}}
}

func (a *stubAPI) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/sessions", a.list)
	mux.HandleFunc("GET /api/sessions/{id}", a.detail)
	mux.HandleFunc("GET /api/sessions/{id}/context", a.context)
	mux.HandleFunc("GET /api/sessions/{id}/entries", a.entries)
	mux.HandleFunc("GET /api/search", a.search)
	mux.HandleFunc("POST /api/sessions/{id}/rename", a.rename)
	mux.HandleFunc("DELETE /api/sessions/{id}", a.delete)
	mux.HandleFunc("POST /api/trash/{tid}/restore", a.restore)
	mux.HandleFunc("GET /api/sessions/{id}/export", a.export)
	mux.HandleFunc("GET /api/sessions/{id}/events", a.sessionEvents)
	mux.HandleFunc("GET /api/events", a.indexEvents)
	mux.HandleFunc("GET /api/sessions/{id}/files", a.files)
	mux.HandleFunc("GET /api/sessions/{id}/file", a.file)
	mux.HandleFunc("GET /api/usage", a.usage)
}

type item struct {
	ID              string  `json:"id"`
	Path            string  `json:"path"`
	Cwd             string  `json:"cwd"`
	Name            *string `json:"name"`
	Created         string  `json:"created"`
	Modified        string  `json:"modified"`
	MessageCount    int     `json:"messageCount"`
	FirstMessage    string  `json:"firstMessage"`
	ParentSessionID *string `json:"parentSessionId"`
	Size            int64   `json:"size"`
	Running         bool    `json:"running"`
}

func (a *stubAPI) items() []item {
	infos := session.ListAll(a.agentDir)
	byPath := map[string]string{}
	for _, in := range infos {
		byPath[in.Path] = jsonStr(in.ID)
	}
	out := make([]item, 0, len(infos))
	for _, in := range infos {
		it := item{ID: jsonStr(in.ID), Path: in.Path, Cwd: in.Cwd, Created: iso(in.Created),
			Modified: iso(in.Modified), MessageCount: in.MessageCount, FirstMessage: in.FirstMessage}
		if in.HasName {
			it.Name = &in.Name
		}
		if p := jsonStr(in.ParentSessionPath); p != "" && byPath[p] != "" {
			id := byPath[p]
			it.ParentSessionID = &id
		}
		if st, err := os.Stat(in.Path); err == nil {
			it.Size = st.Size()
		}
		out = append(out, it)
	}
	return out
}

func (a *stubAPI) find(id string) (item, bool) {
	for _, it := range a.items() {
		if it.ID == id {
			return it, true
		}
	}
	return item{}, false
}

func jsonStr(raw []byte) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func iso(ms float64) string {
	return time.UnixMilli(int64(ms)).UTC().Format("2006-01-02T15:04:05.000Z")
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func (a *stubAPI) list(w http.ResponseWriter, r *http.Request) {
	its := a.items()
	reply(w, map[string]any{"sessions": its, "total": len(its)})
}

func (a *stubAPI) load(w http.ResponseWriter, r *http.Request) (item, *session.Session, bool) {
	it, ok := a.find(r.PathValue("id"))
	if !ok {
		fail(w, 404, "not_found", "session not found")
		return it, nil, false
	}
	s, err := session.ReadFile(it.Path)
	if err != nil {
		fail(w, 500, "internal", err.Error())
		return it, nil, false
	}
	return it, s, true
}

type node struct {
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Type      string  `json:"type"`
	Role      string  `json:"role,omitempty"`
	Timestamp string  `json:"timestamp"`
	Text      string  `json:"text"`
	Label     *string `json:"label"`
}

func (a *stubAPI) detail(w http.ResponseWriter, r *http.Request) {
	it, s, ok := a.load(w, r)
	if !ok {
		return
	}
	labels := map[string]string{}
	for _, l := range s.Labels() {
		labels[strings.TrimPrefix(l.TargetKey, "s")] = jsonStr(l.Value)
	}
	tree := []node{}
	for _, e := range s.Entries {
		if e.ID == "" {
			continue
		}
		n := node{ID: e.ID, Type: e.Type, Timestamp: e.Timestamp, Text: preview(e)}
		if e.ParentID != "" {
			p := e.ParentID
			n.ParentID = &p
		}
		if e.Type == "message" {
			n.Role = e.Role()
		}
		if l, ok := labels[e.ID]; ok {
			n.Label = &l
		}
		tree = append(tree, n)
	}
	var leaf *string
	if l := s.Leaf(); l != nil {
		leaf = &l.ID
	}
	var parent *item
	children := []item{}
	for _, o := range a.items() {
		if it.ParentSessionID != nil && o.ID == *it.ParentSessionID {
			o := o
			parent = &o
		}
		if o.ParentSessionID != nil && *o.ParentSessionID == it.ID {
			children = append(children, o)
		}
	}
	ancestors := []item{}
	if parent != nil {
		ancestors = append(ancestors, *parent)
	}
	reply(w, map[string]any{"session": it, "header": json.RawMessage(s.Header.Raw), "leaf": leaf,
		"tree": tree, "labels": labels, "problems": []any{},
		"lineage": map[string]any{"parent": parent, "ancestors": ancestors, "children": children}})
}

func preview(e *session.Entry) string {
	var v struct {
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Command string          `json:"command"`
		} `json:"message"`
		Summary string `json:"summary"`
		Name    string `json:"name"`
	}
	json.Unmarshal(e.Raw, &v)
	t := v.Summary + v.Name + v.Message.Command + contentText(v.Message.Content)
	if len(t) > 200 {
		t = t[:200]
	}
	return t
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// pageOf applies the documented backwards paging to n items.
func pageOf(r *http.Request, n int) (start, end int, before any) {
	end = n
	if b := r.URL.Query().Get("before"); b != "" {
		end, _ = strconv.Atoi(b)
		end = min(max(end, 0), n)
	}
	start = 0
	if l, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && l > 0 {
		start = max(end-l, 0)
	}
	if start > 0 {
		before = strconv.Itoa(start)
	}
	return start, end, before
}

func (a *stubAPI) context(w http.ResponseWriter, r *http.Request) {
	_, s, ok := a.load(w, r)
	if !ok {
		return
	}
	leaf := r.URL.Query().Get("leaf")
	if leaf != "" && s.ByID(leaf) == nil {
		fail(w, 404, "not_found", "no such entry")
		return
	}
	c := s.Context(leaf)
	start, end, before := pageOf(r, len(c.Messages))
	msgs := make([]json.RawMessage, 0, end-start)
	for _, m := range c.Messages[start:end] {
		msgs = append(msgs, m)
	}
	leafID := leaf
	if leafID == "" && s.Leaf() != nil {
		leafID = s.Leaf().ID
	}
	reply(w, map[string]any{"leaf": leafID, "messages": msgs, "entryIds": c.EntryIDs[start:end],
		"thinkingLevel": json.RawMessage(c.ThinkingLevel), "model": json.RawMessage(orNull(c.Model)),
		"total": len(c.Messages), "start": start, "before": before, "hasMore": start > 0})
}

func orNull(b []byte) []byte {
	if b == nil {
		return []byte("null")
	}
	return b
}

func (a *stubAPI) entries(w http.ResponseWriter, r *http.Request) {
	_, s, ok := a.load(w, r)
	if !ok {
		return
	}
	leaf := s.Leaf()
	if id := r.URL.Query().Get("leaf"); id != "" {
		leaf = s.ByID(id)
	}
	path := s.PathTo(leaf)
	start, end, before := pageOf(r, len(path))
	out := []json.RawMessage{}
	for _, e := range path[start:end] {
		out = append(out, e.Raw)
	}
	reply(w, map[string]any{"entries": out, "total": len(path), "start": start, "before": before, "hasMore": start > 0})
}

func (a *stubAPI) search(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(r.URL.Query().Get("q"))
	hits := []map[string]any{}
	for _, it := range a.items() {
		s, err := session.ReadFile(it.Path)
		if err != nil || q == "" {
			continue
		}
		onPath := map[string]bool{}
		for _, e := range s.PathTo(s.Leaf()) {
			onPath[e.ID] = true
		}
		for _, e := range s.Entries {
			t := preview(e)
			i := strings.Index(strings.ToLower(t), q)
			if e.Type != "message" || i < 0 || len(hits) >= 50 {
				continue
			}
			from := max(i-30, 0)
			snip := t[from:min(len(t), i+len(q)+60)]
			hits = append(hits, map[string]any{"sessionId": it.ID, "entryId": e.ID, "snippet": snip,
				"highlights": [][2]int{{i - from, i - from + len(q)}}, "onCurrentBranch": onPath[e.ID],
				"role": e.Role(), "timestamp": e.Timestamp, "session": it})
		}
	}
	reply(w, map[string]any{"hits": hits, "total": len(hits)})
}

func (a *stubAPI) rename(w http.ResponseWriter, r *http.Request) {
	it, s, ok := a.load(w, r)
	if !ok {
		return
	}
	var body struct{ Name string }
	json.NewDecoder(r.Body).Decode(&body)
	if _, err := session.AppendName(it.Path, s, body.Name); err != nil {
		fail(w, 500, "internal", err.Error())
		return
	}
	it, _ = a.find(it.ID)
	reply(w, map[string]any{"session": it})
}

func (a *stubAPI) delete(w http.ResponseWriter, r *http.Request) {
	it, ok := a.find(r.PathValue("id"))
	if !ok {
		fail(w, 404, "not_found", "session not found")
		return
	}
	dir := filepath.Join(a.agentDir, "trash")
	os.MkdirAll(dir, 0o755)
	tid := fmt.Sprint(time.Now().UnixNano())
	if err := os.Rename(it.Path, filepath.Join(dir, tid)); err != nil {
		fail(w, 500, "internal", err.Error())
		return
	}
	a.mu.Lock()
	a.trash[tid] = it.Path
	a.mu.Unlock()
	reply(w, map[string]any{"trashId": tid, "session": it})
}

func (a *stubAPI) restore(w http.ResponseWriter, r *http.Request) {
	tid := r.PathValue("tid")
	a.mu.Lock()
	orig := a.trash[tid]
	a.mu.Unlock()
	if orig == "" || os.Rename(filepath.Join(a.agentDir, "trash", tid), orig) != nil {
		fail(w, 404, "not_found", "no such trash item")
		return
	}
	reply(w, map[string]any{"session": nil})
}

func (a *stubAPI) export(w http.ResponseWriter, r *http.Request) {
	it, ok := a.find(r.PathValue("id"))
	if !ok {
		fail(w, 404, "not_found", "session not found")
		return
	}
	w.Header().Set("Content-Disposition", "attachment; filename=session.jsonl")
	http.ServeFile(w, r, it.Path)
}

// sessionEvents polls the file and sends entries_appended as it grows.
func (a *stubAPI) sessionEvents(w http.ResponseWriter, r *http.Request) {
	it, ok := a.find(r.PathValue("id"))
	if !ok {
		fail(w, 404, "not_found", "session not found")
		return
	}
	a.poll(w, r, func(send func(any)) func() {
		size := fileSize(it.Path)
		return func() {
			n := fileSize(it.Path)
			if n <= size {
				return
			}
			data, _ := os.ReadFile(it.Path)
			var entries []json.RawMessage
			for _, l := range bytes.Split(bytes.TrimSpace(data[size:]), []byte("\n")) {
				entries = append(entries, l)
			}
			size = n
			send(map[string]any{"type": "entries_appended", "entries": entries, "size": n})
		}
	})
}

func (a *stubAPI) indexEvents(w http.ResponseWriter, r *http.Request) {
	a.poll(w, r, func(send func(any)) func() {
		sizes := a.sizes()
		return func() {
			now := a.sizes()
			changed := false
			for p, n := range now {
				if sizes[p] != n {
					changed = true
				}
			}
			if !changed {
				return
			}
			for _, it := range a.items() {
				if sizes[it.Path] != now[it.Path] {
					send(map[string]any{"type": "session_updated", "session": it})
				}
			}
			sizes = now
		}
	})
}

// sizes stats every session file, cheap enough to poll.
func (a *stubAPI) sizes() map[string]int64 {
	m := map[string]int64{}
	for _, f := range session.SessionFiles(a.agentDir) {
		m[f] = fileSize(f)
	}
	return m
}

func (a *stubAPI) poll(w http.ResponseWriter, r *http.Request, setup func(send func(any)) func()) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		fl.Flush()
	}
	send(map[string]any{"type": "hello"})
	tick := setup(send)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
			tick()
		}
	}
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func (a *stubAPI) cwdPath(w http.ResponseWriter, r *http.Request) (string, bool) {
	it, ok := a.find(r.PathValue("id"))
	rel := r.URL.Query().Get("path")
	if !ok || strings.Contains(rel, "..") || filepath.IsAbs(rel) {
		fail(w, 403, "forbidden", "bad path")
		return "", false
	}
	return filepath.Join(it.Cwd, rel), true
}

func (a *stubAPI) files(w http.ResponseWriter, r *http.Request) {
	p, ok := a.cwdPath(w, r)
	if !ok {
		return
	}
	des, err := os.ReadDir(p)
	if err != nil {
		fail(w, 404, "not_found", "no such directory")
		return
	}
	out := []map[string]any{}
	for _, d := range des {
		typ := "file"
		if d.IsDir() {
			typ = "dir"
		}
		info, _ := d.Info()
		out = append(out, map[string]any{"name": d.Name(), "type": typ, "size": info.Size(),
			"modified": info.ModTime().UTC().Format(time.RFC3339)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["type"] == "dir" && out[j]["type"] != "dir" })
	reply(w, map[string]any{"path": r.URL.Query().Get("path"), "entries": out})
}

func (a *stubAPI) file(w http.ResponseWriter, r *http.Request) {
	p, ok := a.cwdPath(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Security-Policy", "sandbox")
	if strings.HasSuffix(p, ".png") {
		w.Header().Set("Content-Type", "image/png")
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	http.ServeFile(w, r, p)
}

func (a *stubAPI) usage(w http.ResponseWriter, r *http.Request) {
	type row struct {
		Key                                  string  `json:"key"`
		Input, Output, CacheRead, CacheWrite int     `json:"-"`
		Cost                                 float64 `json:"cost"`
		Messages                             int     `json:"messages"`
	}
	by := r.URL.Query().Get("by")
	rows := map[string]map[string]any{}
	for _, it := range a.items() {
		s, err := session.ReadFile(it.Path)
		if err != nil {
			continue
		}
		for _, e := range s.Entries {
			var v struct {
				Message struct {
					Role, Model string
					Usage       struct {
						Input, Output, CacheRead, CacheWrite int
						Cost                                 struct{ Total float64 }
					}
				}
			}
			if json.Unmarshal(e.Raw, &v) != nil || v.Message.Role != "assistant" {
				continue
			}
			key := e.Timestamp[:min(10, len(e.Timestamp))]
			if by == "model" {
				key = v.Message.Model
			} else if by == "project" {
				key = it.Cwd
			}
			rw := rows[key]
			if rw == nil {
				rw = map[string]any{"key": key, "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": 0.0, "messages": 0}
				rows[key] = rw
			}
			u := v.Message.Usage
			rw["input"] = rw["input"].(int) + u.Input
			rw["output"] = rw["output"].(int) + u.Output
			rw["cacheRead"] = rw["cacheRead"].(int) + u.CacheRead
			rw["cacheWrite"] = rw["cacheWrite"].(int) + u.CacheWrite
			rw["cost"] = rw["cost"].(float64) + u.Cost.Total
			rw["messages"] = rw["messages"].(int) + 1
		}
	}
	out := []map[string]any{}
	for _, rw := range rows {
		out = append(out, rw)
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["key"].(string) > out[j]["key"].(string) })
	reply(w, map[string]any{"rows": out})
}
