package catalog

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"piweb/internal/errs"
	"piweb/internal/index"
	"piweb/internal/jsjson"
	"piweb/internal/opt"
	"piweb/pisession"
)

// Options configures Open.
type Options struct {
	// AgentDir is pi's agent dir.
	AgentDir string
	// IndexPath is the index file; "" is the index's default under the
	// user cache dir. When it cannot be opened (or Temporary is set) the
	// index lives in a temporary dir removed on Close.
	IndexPath string
	Temporary bool
	// Getenv reads pi's environment; nil is os.Getenv.
	Getenv func(string) string
	// Log gets problems; nil discards them.
	Log *slog.Logger
	// ReloadEvery bounds how often the snapshot is rebuilt under a stream
	// of changes: a rebuild reads all rows (~100 ms for 5,000), so a file
	// growing continuously must not trigger one per write. A change after
	// a quiet period is reloaded at once. 0 is a second.
	ReloadEvery time.Duration
	// RefreshWait bounds how long Refresh waits for the index's writer
	// (busy while a big file is indexed) before it leaves the file to the
	// watcher. 0 is 3 s.
	RefreshWait time.Duration
	// SyncFor bounds the listing pass Open runs before returning, so the
	// first page is not empty; the watcher indexes the rest. 0 is 3 s.
	SyncFor time.Duration
	// Rescan and Debounce are the index watcher's (0: its defaults).
	Rescan, Debounce time.Duration
}

// Catalog is the listing over the SQLite index. Create it with Open (which
// also keeps the index current) or New, and Close it: every goroutine it
// starts ends in Close.
type Catalog struct {
	*listing
	ix          *index.Index
	reloadEvery time.Duration
	refreshWait time.Duration
	log         *slog.Logger

	reloadMu sync.Mutex   // one reload at a time, so an older never overwrites a newer
	behind   atomic.Int64 // files whose text is not searchable yet
	// lastRead is the number of index rows the latest reload read.
	lastRead atomic.Int64
	cwds     map[string]string // interned folders; guarded by reloadMu
	temp     string            // the temporary index dir, removed on Close

	closeOnce sync.Once
	stops     []func()           // run by Close before waiting
	settle    chan chan struct{} // Settle's requests to follow (nil for Static)
	owned     func()             // closes what Open opened, after the goroutines end
	wg        sync.WaitGroup
}

// Open opens the index of o.AgentDir (in a temporary dir when its own
// place is unusable), lists what it can within o.SyncFor, and keeps the
// index and the listing current until Close.
func Open(ctx context.Context, o Options) (*Catalog, error) {
	opt.Positive(&o.SyncFor, 3*time.Second)
	ix, temp, err := openIndex(ctx, o)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, o.SyncFor)
	ix.Sync(sctx, false)
	cancel()
	c, err := New(ctx, ix, o)
	if err != nil {
		ix.Close()
		os.RemoveAll(temp)
		return nil, err
	}
	c.temp = temp
	wctx, stop := context.WithCancel(context.Background())
	c.stops = append(c.stops, stop)
	c.wg.Go(func() {
		if err := WatchIndex(wctx, ix); err != nil && wctx.Err() == nil {
			c.log.Error("catalog: index watcher", "err", err)
		}
	})
	c.owned = func() {
		ix.Close()
		if temp != "" {
			os.RemoveAll(temp)
		}
	}
	return c, nil
}

// openIndex opens the index at its place, or in a new temporary dir.
func openIndex(ctx context.Context, o Options) (*index.Index, string, error) {
	opt.Log(&o.Log)
	io := index.Options{AgentDir: o.AgentDir, Path: o.IndexPath, Getenv: o.Getenv, Log: o.Log,
		Rescan: o.Rescan, Debounce: o.Debounce}
	if !o.Temporary {
		ix, err := index.Open(ctx, io)
		if err == nil {
			return ix, "", nil
		}
		o.Log.Warn("catalog: index unusable, keeping it in a temporary dir", "err", err)
	}
	temp, err := os.MkdirTemp("", "piweb-index-")
	if err != nil {
		return nil, "", fmt.Errorf("catalog: %w", err)
	}
	io.Path = temp + "/index.db"
	ix, err := index.Open(ctx, io)
	if err != nil {
		os.RemoveAll(temp)
		return nil, "", err
	}
	return ix, temp, nil
}

// New builds the listing over ix, which the caller keeps current (Sync or
// Watch) and closes after the Catalog.
func New(ctx context.Context, ix *index.Index, o Options) (*Catalog, error) {
	opt.Positive(&o.ReloadEvery, time.Second)
	opt.Positive(&o.RefreshWait, 3*time.Second)
	opt.Log(&o.Log)
	c := &Catalog{listing: newListing(), ix: ix, reloadEvery: o.ReloadEvery, refreshWait: o.RefreshWait, log: o.Log,
		settle: make(chan chan struct{})}
	// Subscribed before the first load: a change the index makes between
	// the two is then reloaded, not missed.
	sub := ix.Subscribe()
	if err := c.reload(ctx); err != nil {
		sub.Close()
		return nil, err
	}
	stop := make(chan struct{})
	c.stops = append(c.stops, func() { close(stop) })
	c.wg.Go(func() { c.follow(sub, stop) })
	return c, nil
}

// Static is a catalog without an index, filled with Put: searches find
// nothing and usage is empty. Tests use it for exact contents.
func Static() *Catalog {
	return &Catalog{listing: newListing(), reloadEvery: time.Second, log: opt.Logger(nil)}
}

// Close stops following the index and every goroutine of the catalog, and
// closes the index if Open opened it. It may be called more than once.
func (c *Catalog) Close() error {
	c.closeOnce.Do(func() {
		for _, stop := range c.stops {
			stop()
		}
		c.wg.Wait()
		c.changes.Close()
		if c.owned != nil {
			c.owned()
		}
	})
	return nil
}

// WatchIndex runs ix.Watch until ctx ends, on an OS thread of its own at a
// low CPU priority where the platform allows it. Indexing a big file is
// seconds of CPU in this process; at normal priority it competes with the
// request handlers for the machine's cores, and on two cores requests
// then wait behind it. The watcher does its updates on the calling
// goroutine, so locking it to a thread and lowering that thread's
// priority lets the OS run the handlers first.
func WatchIndex(ctx context.Context, ix *index.Index) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, whose priority an unprivileged
		// process cannot raise again, ends with this goroutine.
		runtime.LockOSThread()
		lowerThreadPriority()
		errc <- ix.Watch(ctx)
	}()
	return <-errc
}

// follow reloads the files the index's changes name, at most every
// reloadEvery, until stop.
func (c *Catalog) follow(sub *index.Subscription, stop <-chan struct{}) {
	defer func() { sub.Close() }()
	var last time.Time
	pending, all := false, false
	dirty := map[string]bool{}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// flush reloads what is pending; a failure is logged and the next
	// change retries.
	flush := func() {
		if !pending {
			return
		}
		if err := c.reloadChanged(context.Background(), dirty, all); err != nil {
			c.log.Error("catalog: reload", "err", err)
		}
		pending, all, dirty = false, false, map[string]bool{}
		last = time.Now()
	}
	// The text pass writes no events: while text is behind, it is
	// counted again now and then.
	text := time.NewTicker(2 * c.reloadEvery)
	defer text.Stop()
	for {
		select {
		case <-stop:
			return
		case <-text.C:
			if c.behind.Load() > 0 {
				c.reloadMu.Lock()
				if err := c.countBehind(context.Background()); err != nil {
					c.log.Error("catalog: count the text behind", "err", err)
				}
				c.reloadMu.Unlock()
			}
		case ev, open := <-sub.C:
			if !open {
				if !sub.Lagged() {
					return
				}
				// Cut off as too slow: subscribe again and reload all, so
				// the snapshot has every change.
				sub = c.ix.Subscribe()
				pending, all = true, true
				timer.Reset(0)
				continue
			}
			dirty[ev.Path] = true
			if !pending {
				pending = true
				timer.Reset(max(10*time.Millisecond, c.reloadEvery-time.Since(last)))
			}
		case done := <-c.settle:
			// The events already queued are the ones a caller may have
			// heard of elsewhere: they are applied too.
			for range len(sub.C) {
				if ev, open := <-sub.C; open {
					dirty[ev.Path], pending = true, true
				}
			}
			flush() // the timer's tick, if set, then finds nothing pending
			close(done)
		case <-timer.C:
			flush()
		}
	}
}

// Settle lists at once the index's changes the catalog holds back (it
// reloads at most every Options.ReloadEvery), returning when they are
// listed or ctx ends: for a request that missed a session which the
// index's events, followed elsewhere, already announced. A Static catalog
// has nothing to settle.
func (c *Catalog) Settle(ctx context.Context) {
	if c.settle == nil {
		return
	}
	done := make(chan struct{})
	select {
	case c.settle <- done:
	case <-ctx.Done():
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// reloadChanged reloads the files at the paths of dirty, or every file
// when all is set or they are a good part of the listing (reading all
// rows at once is then cheaper than by path).
func (c *Catalog) reloadChanged(ctx context.Context, dirty map[string]bool, all bool) error {
	if all || 4*len(dirty) > c.State().Sessions {
		return c.reload(ctx)
	}
	paths := make([]string, 0, len(dirty))
	for p := range dirty {
		paths = append(paths, p)
	}
	return c.reloadPaths(ctx, paths)
}

// Index is the index the catalog lists (nil for Static): the live
// session views, the agent's check for other writers and the fleet
// subscribe to its events (a file grown, with the lines appended as the
// index read them once; rewritten; removed) directly, instead of reading
// the files again.
func (c *Catalog) Index() *index.Index { return c.ix }

// reload replaces the snapshot with the index's current metadata and tells
// subscribers what differs, applying each row as it is read (at 100,000
// sessions, the rows read at once were ~150 MB of a cold open's peak). Reloads are serialised: each reads the index
// after the one before it applied, so an older answer never overwrites a
// newer one.
func (c *Catalog) reload(ctx context.Context) error {
	if c.ix == nil {
		return nil
	}
	c.reloadMu.Lock()
	defer c.reloadMu.Unlock()
	seen := make(map[string]bool, c.State().Sessions)
	read, behind := 0, 0
	err := c.ix.EachSession(ctx, func(im index.Meta) error {
		read++
		if im.TextBehind {
			behind++
		}
		if c.apply(im) {
			seen[im.Info.Path] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.lastRead.Store(int64(read))
	for _, p := range c.gone(seen) {
		c.Remove(p)
	}
	c.behind.Store(int64(behind))
	return nil
}

// reloadPaths is reload for the files at paths only: their rows are read
// again, and a file the index no longer holds leaves the listing.
func (c *Catalog) reloadPaths(ctx context.Context, paths []string) error {
	c.reloadMu.Lock()
	defer c.reloadMu.Unlock()
	metas, err := c.ix.SessionsOf(ctx, paths)
	if err != nil {
		return err
	}
	c.lastRead.Store(int64(len(metas)))
	held := make(map[string]bool, len(metas))
	for _, im := range metas {
		held[im.Info.Path] = true
		if !c.apply(im) {
			c.removeListed(im.Info.Path)
		}
	}
	for _, p := range paths {
		if !held[p] {
			c.removeListed(p)
		}
	}
	return c.countBehind(ctx)
}

// countBehind counts the files whose text is not searchable yet. The
// caller holds reloadMu.
func (c *Catalog) countBehind(ctx context.Context) error {
	n, err := c.ix.TextBehind(ctx)
	if err == nil {
		c.behind.Store(int64(n))
	}
	return err
}

// apply puts a file's row into the listing if pi lists it (listed). The
// caller holds reloadMu.
func (c *Catalog) apply(im index.Meta) (listed bool) {
	if !im.Listed || im.Error != "" {
		return false
	}
	m := fromIndex(im)
	m.Cwd = c.intern(m.Cwd)
	if old, found := c.ByPath(m.Path); !found || !sameButKey(old, m) {
		c.Put(m)
	}
	return true
}

// intern returns the one copy of cwd the listing keeps: thousands of
// sessions share a folder, and each row read from SQLite brings its own
// copy. The caller holds reloadMu.
func (c *Catalog) intern(cwd string) string {
	if v, ok := c.cwds[cwd]; ok {
		return v
	}
	if c.cwds == nil {
		c.cwds = map[string]string{}
	}
	c.cwds[cwd] = cwd
	return cwd
}

// removeListed removes the file at path from the listing if it is there.
func (c *Catalog) removeListed(path string) {
	if _, found := c.ByPath(path); found {
		c.Remove(path)
	}
}

// sameButKey compares listings apart from the key, which Put assigns.
func sameButKey(a, b Meta) bool {
	a.Key, b.Key = "", ""
	return Same(a, b)
}

// gone lists the paths of the snapshot not in seen.
func (c *listing) gone(seen map[string]bool) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for p := range c.byPath {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out
}

// apiID is the id a session is reached by: its header's, or when that is
// not a string (pi lists such a file all the same) the id pi put in the
// file's name, else one made from the path as keyOf makes a copy's.
func apiID(headerID, path string) string {
	if headerID != "" {
		return headerID
	}
	if id := pisession.IDFromFileName(path); id != "" {
		return id
	}
	return keyOf("", path, false)
}

// fromIndex is the listing of an index row. Its id is a part of its path
// when the path holds it (pi names files <time>_<id>.jsonl): one string
// less per session.
func fromIndex(im index.Meta) Meta {
	in := im.Info
	id := apiID(im.SessionID, in.Path)
	if i := strings.LastIndex(in.Path, id); i >= 0 {
		id = in.Path[i : i+len(id)]
	}
	m := Meta{ID: id, Path: in.Path, Cwd: in.Cwd, Name: in.Name, HasName: in.HasName,
		Created: in.Created, Modified: in.Modified, MessageCount: in.MessageCount,
		FirstMessage: firstMessage(in.FirstMessage), Size: im.Size}
	if in.ParentSessionPath != nil {
		m.ParentPath, _ = jsjson.DecodeString(in.ParentSessionPath)
	}
	return m
}

// State reports the index's progress for GET /api/status.
func (c *Catalog) State() State {
	n := c.behind.Load()
	c.mu.RLock()
	total := len(c.byPath)
	c.mu.RUnlock()
	return State{Kind: "sqlite", Ready: n == 0, TextBehind: n, Sessions: total, Temporary: c.temp != ""}
}

// Refresh re-indexes one file now, after piweb changed it, and updates
// the snapshot before returning so the caller reads its own write, unless
// the index's writer stays busy (a big file being indexed) for longer
// than Options.RefreshWait: then the request answers without it, and the
// watcher indexes the file when the writer is free.
func (c *Catalog) Refresh(path string) {
	if c.ix == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.refreshWait)
	defer cancel()
	if err := c.ix.Update(ctx, path); err != nil {
		c.log.Error("catalog: index update", "path", path, "err", err)
		return
	}
	if err := c.reloadPaths(ctx, []string{path}); err != nil {
		c.log.Error("catalog: reload", "err", err)
	}
}

// Sync indexes every change now (the watcher would, later) and reloads:
// for callers that changed files behind piweb's back and read at once.
func (c *Catalog) Sync(ctx context.Context) error {
	if c.ix == nil {
		return nil
	}
	if _, err := c.ix.Sync(ctx, true); err != nil {
		return err
	}
	return c.reload(ctx)
}

// Tail plans the context at the leaf of the session file at path from
// the index (index.Tail); ok is false without an index or when it cannot
// answer exactly.
func (c *Catalog) Tail(ctx context.Context, path string) (t *pisession.Tail, done func(), ok bool, err error) {
	if c.ix == nil {
		return nil, nil, false, nil
	}
	t, done, ok, err = c.ix.Tail(ctx, path)
	if err != nil {
		return nil, nil, false, errs.E("catalog.Tail", errs.Internal, "cannot read the index", err)
	}
	return t, done, ok, nil
}

// List filters, sorts and pages the listing; text also matches through
// the index's full-text search.
func (c *Catalog) List(ctx context.Context, q ListQuery) ([]Meta, int, error) {
	l, err := c.Page(ctx, q)
	return l.Metas, l.Total, err
}

// Page is List with the counts a page of the sidebar shows.
func (c *Catalog) Page(ctx context.Context, q ListQuery) (Listed, error) {
	if q.Text == "" || c.ix == nil {
		return c.list(q, nil), nil
	}
	hits, err := c.ix.Search(ctx, index.Query{Text: q.Text, Cwd: q.Project, Limit: 1000})
	if err != nil {
		return Listed{}, errs.E("catalog.List", errs.Internal, "cannot list sessions", err)
	}
	paths := make(map[string]bool, len(hits))
	for _, h := range hits {
		paths[h.Path] = true
	}
	return c.list(q, func(e *entry) bool { return paths[e.meta.Path] }), nil
}

func hitOf(m Meta, h index.Hit) Hit {
	var b strings.Builder
	var hl [][2]int
	for _, sp := range h.Snippet {
		if sp.Match {
			hl = append(hl, [2]int{b.Len(), b.Len() + len(sp.Text)})
		}
		b.WriteString(sp.Text)
	}
	return Hit{Session: m, EntryID: h.EntryID, Role: h.Role,
		Timestamp: time.UnixMilli(h.Timestamp).UTC().Format("2006-01-02T15:04:05.000Z"),
		Snippet:   b.String(), Highlights: hl, OnBranch: h.OnBranch}
}

// Usage answers from the index's usage table.
func (c *Catalog) Usage(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	if c.ix == nil {
		return []UsageRow{}, nil
	}
	rows, err := c.ix.Usage(ctx, q)
	if err != nil {
		return nil, errs.E("catalog.Usage", errs.Internal, "cannot compute usage", err)
	}
	return rows, nil
}

// SessionUsage is one listed session's usage over a period.
type SessionUsage struct {
	Meta  Meta
	Usage UsageRow // Key is empty
}

// UsageBySession is the usage of the listed sessions over q's period,
// the most expensive first (then the most tokens, then the newest), at
// most limit of them.
func (c *Catalog) UsageBySession(ctx context.Context, q UsageQuery, limit int) ([]SessionUsage, error) {
	if c.ix == nil {
		return []SessionUsage{}, nil
	}
	q.By = "session"
	rows, err := c.ix.Usage(ctx, q)
	if err != nil {
		return nil, errs.E("catalog.UsageBySession", errs.Internal, "cannot compute usage", err)
	}
	out := make([]SessionUsage, 0, len(rows))
	c.mu.RLock()
	for _, r := range rows {
		if e := c.byPath[r.Key]; e != nil {
			r.Key = ""
			out = append(out, SessionUsage{Meta: e.meta, Usage: r})
		}
	}
	c.mu.RUnlock()
	slices.SortFunc(out, func(a, b SessionUsage) int {
		return cmp.Or(cmp.Compare(b.Usage.Cost, a.Usage.Cost), cmp.Compare(tokensOf(b.Usage), tokensOf(a.Usage)),
			cmp.Compare(b.Meta.Modified, a.Meta.Modified))
	})
	return out[:min(len(out), limit)], nil
}

func tokensOf(r UsageRow) float64 { return r.Input + r.Output + r.CacheRead + r.CacheWrite }

// ReadMeta reads the listing of a session file the index does not list
// (a trashed file), by parsing it.
func ReadMeta(path string) (Meta, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return Meta{}, false
	}
	s, err := pisession.ReadFile(path)
	if err != nil {
		return Meta{}, false
	}
	in, listed := s.Info(path, st.ModTime())
	if !listed {
		return Meta{}, false
	}
	id, _ := jsjson.DecodeString(in.ID)
	id = apiID(id, path)
	m := Meta{Key: id, ID: id, Path: path, Cwd: in.Cwd, Name: in.Name, HasName: in.HasName,
		Created: in.Created, Modified: in.Modified, MessageCount: in.MessageCount,
		FirstMessage: firstMessage(in.FirstMessage), Size: st.Size()}
	m.ParentPath, _ = jsjson.DecodeString(in.ParentSessionPath)
	return m, true
}
