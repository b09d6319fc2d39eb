package catalog

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strconv"
	"sync"
)

// ListCache keeps encoded listings ({"sessions":[Item…],"total":N}) until
// their generation changes: the sidebar asks for the same listing on
// every change event. A request must not pay for a whole listing when one
// session changed (5,000 sessions are ~3 MB of JSON; encoding them all
// took 0.2-1 s on a loaded 2-core machine), so a rebuild reuses the
// encoded item of every session whose listing did not change, and
// compresses in the background (clients get the identity body until the
// gzipped one is ready). The zero value is ready; Wait ends with the
// background compressions.
type ListCache struct {
	build sync.Mutex // one build at a time; the others wait for it
	items itemCache  // guarded by build

	mu     sync.RWMutex
	bodies map[string]*cachedList
	bg     sync.WaitGroup

	// NoGzip leaves compression out, for benchmarks of the rebuild alone.
	NoGzip bool
}

// Gen is what a cached listing depends on: the catalog's generation and
// the workers' running state's.
type Gen struct{ Catalog, Running uint64 }

// ListSource produces one listing: the sessions, their total, and each
// session's Links.
type ListSource struct {
	Gen   func() Gen
	List  func() ([]Meta, int, error)
	Links func(Meta) Links
}

type cachedList struct {
	gen  Gen
	body []byte
	gz   []byte // the gzipped body once compressed; guarded by ListCache.mu
}

// gzipOver is the size above which a cached listing is also kept
// gzipped: 5,000 sessions are ~3 MB of JSON and ~10x less compressed.
const gzipOver = 64 << 10

// Get returns the body of the listing key (and its gzipped form, if
// ready), cached when cacheable, built from src otherwise or when stale.
//
// The answer is never older than the request: it holds every change whose
// generation src reported when Get began. A client that applied a change
// event and then asks for the listing must not get a listing from before
// that change (it would undo it, and no later event would redo it). A
// request that finds another one rebuilding waits for that rebuild and
// uses it when it is new enough, so a burst of requests after one change
// pays for one rebuild.
func (c *ListCache) Get(key string, cacheable bool, src ListSource) ([]byte, []byte, error) {
	if !cacheable {
		metas, total, err := src.List()
		if err != nil {
			return nil, nil, err
		}
		return encodeList(metas, total, src.Links, nil), nil, nil
	}
	want := src.Gen()
	if e, gz, ok := c.fresh(key, want); ok {
		return e.body, gz, nil
	}
	c.build.Lock()
	defer c.build.Unlock()
	if e, gz, ok := c.fresh(key, want); ok {
		return e.body, gz, nil
	}
	return c.rebuild(key, src)
}

// fresh returns the cached listing of key and its gzipped form, and
// whether it is at least as new as want.
func (c *ListCache) fresh(key string, want Gen) (*cachedList, []byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.bodies[key]
	if e == nil {
		return nil, nil, false
	}
	return e, e.gz, e.gen.covers(want)
}

// covers reports whether a listing of generation g holds every change of
// generation want: generations only grow.
func (g Gen) covers(want Gen) bool {
	return g.Catalog >= want.Catalog && g.Running >= want.Running
}

// rebuild encodes the listing key again; c.build is held.
func (c *ListCache) rebuild(key string, src ListSource) ([]byte, []byte, error) {
	gen := src.Gen()
	metas, total, err := src.List()
	if err != nil {
		return nil, nil, err
	}
	e := &cachedList{gen: gen, body: encodeList(metas, total, src.Links, &c.items)}
	c.mu.Lock()
	if c.bodies == nil || len(c.bodies) > 64 {
		c.bodies = map[string]*cachedList{}
	}
	c.bodies[key] = e
	c.mu.Unlock()
	if len(e.body) > gzipOver && !c.NoGzip {
		c.bg.Go(func() { c.compress(e) })
	}
	return e.body, nil, nil
}

// Wait waits for the background compressions.
func (c *ListCache) Wait() { c.bg.Wait() }

// compress gzips a cached body for the clients that accept it.
func (c *ListCache) compress(e *cachedList) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(e.body)
	zw.Close()
	c.mu.Lock()
	e.gz = buf.Bytes()
	c.mu.Unlock()
}

// encodeList writes {"sessions":[…],"total":N} and a newline, the bytes
// json.Marshal would write, taking unchanged items from items (nil: no
// cache).
func encodeList(metas []Meta, total int, links func(Meta) Links, items *itemCache) []byte {
	buf := make([]byte, 0, 64+len(metas)*600)
	buf = append(buf, `{"sessions":[`...)
	for i, m := range metas {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, items.encode(m, links(m))...)
	}
	buf = append(buf, `],"total":`...)
	buf = strconv.AppendInt(buf, int64(total), 10)
	return append(buf, "}\n"...)
}

// itemCache keeps each session's encoded item with what it was made from.
type itemCache struct {
	m     map[string]encodedItem
	built int // encodes since the map was last emptied
}

type encodedItem struct {
	meta  Meta
	links Links
	b     []byte
}

// encode returns the JSON of the item of m, reusing the last encoding
// when neither its Meta nor its links changed.
func (c *itemCache) encode(m Meta, l Links) []byte {
	if c != nil {
		if e, found := c.m[m.Path]; found && Same(e.meta, m) && e.links.equal(l) {
			return e.b
		}
	}
	b, _ := json.Marshal(ItemOf(m, l))
	if c != nil {
		if c.m == nil || c.built > 4*len(c.m)+10000 {
			c.m, c.built = map[string]encodedItem{}, 0 // forget removed sessions now and then
		}
		c.m[m.Path] = encodedItem{meta: m, links: l, b: b}
		c.built++
	}
	return b
}
