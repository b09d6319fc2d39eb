package server

import (
	"cmp"
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"piweb/internal/session"
)

type sessionInfo = session.Info

// ScanCatalog is a Catalog over a plain scan of the agent dir, polled for
// changes. It is the fallback when the SQLite index is unavailable and the
// reference the index is compared with in tests; it keeps everything in
// memory and searches by reading files.
type ScanCatalog struct {
	*memCatalog
	agentDir string
	interval time.Duration

	stop chan struct{}
	done chan struct{}
}

// memCatalog is the in-memory listing both catalogs answer from: the scan
// fills it by reading files, the index catalog from SQLite.
type memCatalog struct {
	mu     sync.RWMutex
	byPath map[string]*scanned
	byID   map[string]*scanned
	subs   subscribers[Change]
	gen    atomic.Uint64
}

// Generation changes whenever the listing does, so answers built from it
// can be cached.
func (c *memCatalog) Generation() uint64 { return c.gen.Load() }

func newMemCatalog() *memCatalog {
	return &memCatalog{byPath: map[string]*scanned{}, byID: map[string]*scanned{}}
}

type scanned struct {
	meta  Meta
	text  string // lower-cased message text, for the list filter
	mtime time.Time
}

// NewScanCatalog scans agentDir now and then every interval (0: never),
// until Close.
func NewScanCatalog(agentDir string, interval time.Duration) *ScanCatalog {
	c := &ScanCatalog{memCatalog: newMemCatalog(), agentDir: agentDir, interval: interval,
		stop: make(chan struct{}), done: make(chan struct{})}
	c.Rescan()
	go c.loop()
	return c
}

// Close stops the polling.
func (c *ScanCatalog) Close() error {
	close(c.stop)
	<-c.done
	return nil
}

func (c *ScanCatalog) loop() {
	defer close(c.done)
	if c.interval <= 0 {
		<-c.stop
		return
	}
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.Rescan()
		}
	}
}

// Rescan stats every session file and re-reads the new and changed ones.
func (c *ScanCatalog) Rescan() {
	files := session.SessionFiles(c.agentDir)
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f] = true
		st, err := os.Stat(f)
		if err != nil {
			continue
		}
		c.mu.RLock()
		old := c.byPath[f]
		c.mu.RUnlock()
		if old != nil && old.meta.Size == st.Size() && old.mtime.Equal(st.ModTime()) {
			continue
		}
		c.Refresh(f)
	}
	c.mu.RLock()
	var gone []string
	for p := range c.byPath {
		if !seen[p] {
			gone = append(gone, p)
		}
	}
	c.mu.RUnlock()
	for _, p := range gone {
		c.Refresh(p)
	}
}

// Refresh re-reads one file and notifies subscribers of the difference.
func (c *memCatalog) Refresh(path string) { c.put(path, readScanned(path)) }

// put stores (or, for nil, removes) a file's listing and notifies
// subscribers of the difference.
func (c *memCatalog) put(path string, sc *scanned) {
	c.mu.Lock()
	old := c.byPath[path]
	var ch *Change
	switch {
	case sc == nil && old != nil:
		delete(c.byPath, path)
		if c.byID[old.meta.ID] == old {
			delete(c.byID, old.meta.ID)
		}
		ch = &Change{Kind: Removed, Meta: old.meta}
	case sc != nil:
		c.byPath[path] = sc
		c.byID[sc.meta.ID] = sc
		ch = &Change{Kind: Added, Meta: sc.meta}
		if old != nil {
			ch.Kind = Updated
		}
	}
	if ch != nil {
		c.gen.Add(1)
	}
	c.mu.Unlock()
	if ch != nil {
		c.subs.call(*ch)
	}
}

func readScanned(path string) *scanned {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	s, err := session.ReadFile(path)
	if err != nil {
		return nil
	}
	in, ok := s.Info(path, st.ModTime())
	if !ok {
		return nil
	}
	m := metaFromInfo(in.ID, in)
	m.Size = st.Size()
	return &scanned{meta: m, mtime: st.ModTime(),
		text: strings.ToLower(in.Name + " " + in.FirstMessage + " " + in.AllMessagesText)}
}

// Subscribe registers fn for every later change.
func (c *memCatalog) Subscribe(fn func(Change)) func() { return c.subs.add(fn) }

// ByID finds a session by header id.
func (c *memCatalog) ByID(id string) (Meta, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if sc := c.byID[id]; sc != nil {
		return sc.meta, true
	}
	return Meta{}, false
}

// ByPath finds a session by file path.
func (c *memCatalog) ByPath(path string) (Meta, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if sc := c.byPath[path]; sc != nil {
		return sc.meta, true
	}
	return Meta{}, false
}

// Parent finds the session m was forked or cloned from.
func (c *memCatalog) Parent(m Meta) (Meta, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if sc := c.parentOf(m); sc != nil {
		return sc.meta, true
	}
	return Meta{}, false
}

// parentOf is the one place that links a fork to its parent: the session
// at the path in its header, else, when no session is listed there, the
// session whose id pi wrote into that path's file name. The path goes
// stale when the user moves or copies session files or renames a project
// folder (and forkFrom may store it relative), while the parent is still
// listed under another path. The caller holds c.mu.
func (c *memCatalog) parentOf(m Meta) *scanned {
	if m.ParentPath == "" {
		return nil
	}
	if sc := c.byPath[m.ParentPath]; sc != nil {
		return sc
	}
	if sc := c.byID[session.IDFromFileName(m.ParentPath)]; sc != nil && sc.meta.Path != m.Path {
		return sc
	}
	return nil
}

// Children lists the sessions forked or cloned from the session at path
// (those whose header names path when no session is listed there).
func (c *memCatalog) Children(path string) []Meta {
	c.mu.RLock()
	defer c.mu.RUnlock()
	self := c.byPath[path]
	var out []Meta
	for _, sc := range c.byPath {
		if self != nil && sc != self && c.parentOf(sc.meta) == self ||
			self == nil && sc.meta.ParentPath == path {
			out = append(out, sc.meta)
		}
	}
	slices.SortFunc(out, func(a, b Meta) int { return cmp.Compare(a.Created, b.Created) })
	return out
}

// List filters, sorts and pages the sessions. It sorts pointers (a Meta
// is ~150 bytes to swap) and copies out only the page.
func (c *memCatalog) List(ctx context.Context, q ListQuery) ([]Meta, int, error) {
	text := strings.ToLower(q.Text)
	c.mu.RLock()
	sel := make([]*scanned, 0, len(c.byPath))
	for _, sc := range c.byPath {
		if q.Project != "" && sc.meta.Cwd != q.Project {
			continue
		}
		if text != "" && !strings.Contains(sc.text, text) {
			continue
		}
		sel = append(sel, sc)
	}
	c.mu.RUnlock() // entries are replaced, never changed in place
	sortScanned(sel, q.Sort, q.Asc)
	total := len(sel)
	sel = page(sel, q.Offset, q.Limit)
	out := make([]Meta, len(sel))
	for i, sc := range sel {
		out[i] = sc.meta
	}
	return out, total, nil
}

// sortScanned orders sessions; ties break on path so pages are stable.
func sortScanned(ss []*scanned, by string, asc bool) {
	var names map[*scanned]string
	if by == "name" {
		names = make(map[*scanned]string, len(ss))
		for _, sc := range ss {
			names[sc] = strings.ToLower(displayName(sc.meta))
		}
	}
	key := func(a, b *Meta) int {
		switch by {
		case "created":
			return cmp.Compare(a.Created, b.Created)
		case "messages":
			return cmp.Compare(a.MessageCount, b.MessageCount)
		case "size":
			return cmp.Compare(a.Size, b.Size)
		}
		return cmp.Compare(a.Modified, b.Modified)
	}
	slices.SortFunc(ss, func(a, b *scanned) int {
		var r int
		if names != nil {
			r = cmp.Compare(names[a], names[b])
		} else {
			r = key(&a.meta, &b.meta)
		}
		if !asc {
			r = -r
		}
		if r == 0 {
			r = cmp.Compare(a.meta.Path, b.meta.Path)
		}
		return r
	})
}

func displayName(m Meta) string {
	if m.HasName {
		return m.Name
	}
	return m.FirstMessage
}

func page[T any](xs []T, offset, limit int) []T {
	if offset >= len(xs) {
		return []T{}
	}
	xs = xs[offset:]
	if limit > 0 && limit < len(xs) {
		xs = xs[:limit]
	}
	return xs
}

// Search reads every candidate file and matches message text, case
// insensitively, as a plain substring.
func (c *memCatalog) Search(ctx context.Context, q SearchQuery) ([]Hit, int, error) {
	metas, _, _ := c.List(ctx, ListQuery{Project: q.Project, Text: q.Text})
	needle := strings.ToLower(q.Text)
	var hits []Hit
	for _, m := range metas {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		s, err := session.ReadFile(m.Path)
		if err != nil {
			continue
		}
		for _, e := range s.Entries {
			if e.Type != "message" {
				continue
			}
			if h, ok := matchEntry(e, needle); ok {
				h.SessionID, h.Path = m.ID, m.Path
				hits = append(hits, h)
			}
		}
	}
	return page(hits, 0, q.Limit), len(hits), nil
}

// matchEntry matches needle (lower case) in an entry's message text.
func matchEntry(e *session.Entry, needle string) (Hit, bool) {
	text := messageText(e)
	i := strings.Index(strings.ToLower(text), needle)
	if i < 0 || needle == "" {
		return Hit{}, false
	}
	start := max(0, i-60)
	end := min(len(text), i+len(needle)+100)
	start, end = runeBounds(text, start, end)
	snip := text[start:end]
	return Hit{EntryID: e.ID, Role: e.Role(), Timestamp: e.Timestamp, Snippet: snip,
		Highlights: [][2]int{{i - start, i - start + len(needle)}}}, true
}
