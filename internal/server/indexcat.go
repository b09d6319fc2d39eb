package server

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"piweb/internal/index"
)

// IndexCatalog is the Catalog over the SQLite index: listing answers come
// from an in-memory snapshot of the index's metadata, reloaded (at most
// every reloadEvery) when the index's watcher reports a change, so a
// request never waits for SQLite or for a big file being indexed. Search
// is the index's full-text search.
type IndexCatalog struct {
	*memCatalog
	ix     *index.Index
	cancel func()
	done   chan struct{}

	behind   atomic.Int64 // files whose text is not yet searchable
	fileSubs subscribers[string]
}

// reloadEvery bounds how often the snapshot is rebuilt under a stream of
// changes: a rebuild reads all 5,000 rows (~100 ms), so a file growing
// continuously must not trigger one per write. A change after a quiet
// period is reloaded at once.
var reloadEvery = time.Second

// NewIndexCatalog loads the snapshot and follows the index's changes until
// Close. The caller runs ix.Watch (or Sync) to keep the index current.
func NewIndexCatalog(ctx context.Context, ix *index.Index) (*IndexCatalog, error) {
	c := &IndexCatalog{memCatalog: newMemCatalog(), ix: ix, done: make(chan struct{})}
	if err := c.reload(ctx); err != nil {
		return nil, err
	}
	events, cancel := ix.Subscribe()
	c.cancel = cancel
	go c.follow(events)
	return c, nil
}

// Close stops following the index (it does not close the index).
func (c *IndexCatalog) Close() error {
	c.cancel()
	<-c.done
	return nil
}

func (c *IndexCatalog) follow(events <-chan index.Event) {
	defer close(c.done)
	var last time.Time
	pending := false
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case ev, open := <-events:
			if !open {
				return
			}
			c.fileChanged(ev.SessionID)
			if pending {
				continue
			}
			pending = true
			timer.Reset(max(10*time.Millisecond, reloadEvery-time.Since(last)))
		case <-timer.C:
			if pending {
				pending = false
				c.reload(context.Background()) // on error the next change retries
				last = time.Now()
			}
		}
	}
}

// SubscribeFiles calls fn with the session id of every file change as
// soon as the index has it, before the snapshot reload: the server uses it
// to stream appended entries without waiting for the listing.
func (c *IndexCatalog) SubscribeFiles(fn func(id string)) func() { return c.fileSubs.add(fn) }

func (c *IndexCatalog) fileChanged(id string) {
	if id != "" {
		c.fileSubs.call(id)
	}
}

// reload replaces the snapshot with the index's current metadata and tells
// subscribers what differs.
func (c *IndexCatalog) reload(ctx context.Context) error {
	metas, err := c.ix.Sessions(ctx)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(metas))
	behind := 0
	for _, m := range metas {
		if m.TextBehind {
			behind++
		}
		if !m.Listed || m.Error != "" {
			continue
		}
		sc := fromIndex(m)
		seen[sc.meta.Path] = true
		c.mu.RLock()
		old := c.byPath[sc.meta.Path]
		c.mu.RUnlock()
		if old == nil || !sameMeta(old.meta, sc.meta) {
			c.put(sc.meta.Path, sc)
		}
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
		c.put(p, nil)
	}
	c.behind.Store(int64(behind))
	return nil
}

// IndexState reports, for GET /api/status, how many files still wait for
// their text to be indexed.
func (c *IndexCatalog) IndexState() map[string]any {
	n := c.behind.Load()
	return map[string]any{"kind": "sqlite", "ready": n == 0, "textBehind": n}
}

func fromIndex(m index.Meta) *scanned {
	meta := metaFromInfo(m.Info.ID, m.Info)
	meta.Size = m.Size
	return &scanned{meta: meta, text: strings.ToLower(meta.Name + " " + meta.FirstMessage)}
}

// Refresh re-indexes one file now, after piweb changed it, and updates
// the snapshot before returning so the caller reads its own write.
func (c *IndexCatalog) Refresh(path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c.ix.Update(ctx, path) == nil {
		c.reload(ctx)
		return
	}
	c.memCatalog.Refresh(path) // index unavailable: read the file
}

// List filters with the index's full-text search when there is text.
func (c *IndexCatalog) List(ctx context.Context, q ListQuery) ([]Meta, int, error) {
	if q.Text == "" {
		return c.memCatalog.List(ctx, q)
	}
	hits, err := c.ix.Search(ctx, index.Query{Text: q.Text, Cwd: q.Project, Limit: 1000})
	if err != nil {
		return nil, 0, err
	}
	ids := map[string]bool{}
	for _, h := range hits {
		ids[h.SessionID] = true
	}
	text := strings.ToLower(q.Text)
	all, _, _ := c.memCatalog.List(ctx, ListQuery{Project: q.Project, Sort: q.Sort, Asc: q.Asc})
	var out []Meta
	for _, m := range all {
		if ids[m.ID] || strings.Contains(strings.ToLower(m.Name+" "+m.FirstMessage), text) {
			out = append(out, m)
		}
	}
	return page(out, q.Offset, q.Limit), len(out), nil
}

// Search is the index's ranked, branch-aware search.
func (c *IndexCatalog) Search(ctx context.Context, q SearchQuery) ([]Hit, int, error) {
	hits, err := c.ix.Search(ctx, index.Query{Text: q.Text, Cwd: q.Project, Limit: q.Limit})
	if err != nil {
		return nil, 0, err
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		var b strings.Builder
		var hl [][2]int
		for _, sp := range h.Snippet {
			if sp.Match {
				hl = append(hl, [2]int{b.Len(), b.Len() + len(sp.Text)})
			}
			b.WriteString(sp.Text)
		}
		onBranch := h.OnBranch
		out = append(out, Hit{SessionID: h.SessionID, Path: h.Path, EntryID: h.EntryID, Role: h.Role,
			Timestamp: time.UnixMilli(h.Timestamp).UTC().Format("2006-01-02T15:04:05.000Z"),
			Snippet:   b.String(), Highlights: hl, OnBranch: &onBranch})
	}
	return out, len(out), nil
}

// sameMeta compares listings, counting two invalid (NaN) dates as equal.
func sameMeta(a, b Meta) bool {
	nan := func(x, y float64) bool { return x == y || (x != x && y != y) }
	ac, bc := a, b
	ac.Created, ac.Modified, bc.Created, bc.Modified = 0, 0, 0, 0
	return ac == bc && nan(a.Created, b.Created) && nan(a.Modified, b.Modified)
}
