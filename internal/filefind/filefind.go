// Package filefind answers the composer's "@" completion: the files and
// folders of a session's folder that match a fuzzy query, best first. A
// folder's list is git's in a repository (`git ls-files --cached --others
// --exclude-standard` through gitx: tracked and untracked files,
// .gitignore respected), else a walk; both are bounded in paths and time,
// and a list cut short or missing folders it could not read is marked
// partial, with the reason. Lists hold names only (nothing is opened, no
// symlink followed) and are cached per folder: one older than TTL still
// answers while it is listed again in the background.
package filefind

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
	"piweb/internal/gitx"
	"piweb/internal/opt"
)

// Defaults of Options' zero values.
const (
	DefaultTTL      = 5 * time.Second
	DefaultMaxPaths = 250_000
	DefaultBudget   = 3 * time.Second
	DefaultFolders  = 8
	DefaultIdle     = 5 * time.Minute
	DefaultLimit    = 50
	MaxLimit        = 200
)

// Options configures a Finder.
type Options struct {
	Git      *gitx.Git
	TTL      time.Duration // a list older than this is listed again
	MaxPaths int           // the most paths a list keeps; beyond, it is partial
	Budget   time.Duration // the longest one listing (git, then a walk) takes
	Folders  int           // the lists kept, the least recently used dropped first
	Idle     time.Duration // a list unused this long is dropped (a 250,000-path list holds about 25 MB)
	Now      func() time.Time
}

// Finder finds paths in folders. It is safe for concurrent use; Close
// waits for the listings it started.
type Finder struct {
	opts  Options
	mu    sync.Mutex
	lists map[string]*entry // by the folder's real path
	wg    sync.WaitGroup
}

// entry is one folder's list: ready is closed once it has its first.
type entry struct {
	list    *List
	at      time.Time // when list was made
	used    time.Time
	loading bool
	ready   chan struct{}
}

// New returns a Finder with opts' zero values defaulted.
func New(opts Options) *Finder {
	if opts.Git == nil {
		opts.Git = gitx.New(gitx.Options{})
	}
	opt.Positive(&opts.TTL, DefaultTTL)
	opt.Positive(&opts.MaxPaths, DefaultMaxPaths)
	opt.Positive(&opts.Budget, DefaultBudget)
	opt.Positive(&opts.Folders, DefaultFolders)
	opt.Positive(&opts.Idle, DefaultIdle)
	opt.Clock(&opts.Now)
	return &Finder{opts: opts, lists: map[string]*entry{}}
}

// Close waits for the listings under way (each ends within Budget).
func (f *Finder) Close() { f.wg.Wait() }

// Find answers the paths of cwd matching query, at most limit (0:
// DefaultLimit; at most MaxLimit), best first.
func (f *Finder) Find(ctx context.Context, cwd, query string, limit int) (apitype.FileMatches, error) {
	opt.Positive(&limit, DefaultLimit)
	limit = min(limit, MaxLimit)
	root, _, err := cwdfs.Resolve(cwd, "")
	if err != nil {
		return apitype.FileMatches{}, err
	}
	l, err := f.list(ctx, root)
	if err != nil {
		return apitype.FileMatches{}, err
	}
	return apitype.FileMatches{Matches: l.Match(query, limit), Files: l.Files, Partial: l.Partial,
		Reason: l.Reason}, nil
}

// list is root's list, waiting for its first listing; a stale one starts
// listing again and answers meanwhile.
func (f *Finder) list(ctx context.Context, root string) (*List, error) {
	f.mu.Lock()
	now := f.opts.Now()
	f.dropIdle(now)
	e := f.lists[root]
	if e == nil {
		e = &entry{ready: make(chan struct{}), used: now}
		f.lists[root] = e
		f.evict()
		f.start(root, e)
	} else if e.list != nil && !e.loading && now.Sub(e.at) > f.opts.TTL {
		f.start(root, e)
	}
	e.used = now
	f.mu.Unlock()
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, errs.E("filefind.Find", errs.Canceled, ctx.Err())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return e.list, nil
}

// start lists root in the background into e; f.mu is held.
func (f *Finder) start(root string, e *entry) {
	e.loading = true
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		l := f.load(root)
		f.mu.Lock()
		first := e.list == nil
		e.list, e.at, e.loading = l, f.opts.Now(), false
		f.mu.Unlock()
		if first {
			close(e.ready)
		}
	}()
}

// dropIdle drops the lists unused for Idle; f.mu is held.
func (f *Finder) dropIdle(now time.Time) {
	for root, e := range f.lists {
		if now.Sub(e.used) > f.opts.Idle {
			delete(f.lists, root)
		}
	}
}

// Folders is the number of lists kept.
func (f *Finder) Folders() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.lists)
}

// evict drops the least recently used lists beyond Folders; f.mu is held.
func (f *Finder) evict() {
	for len(f.lists) > f.opts.Folders {
		roots := slices.Collect(maps.Keys(f.lists))
		oldest := slices.MinFunc(roots, func(a, b string) int { return f.lists[a].used.Compare(f.lists[b].used) })
		delete(f.lists, oldest)
	}
}
