package catalog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strconv"
	"sync"
)

// ListCache keeps encoded pages of the listing
// ({"sessions":[Item…],"total":N}) until their generation changes: the
// sidebar asks for the same page after a reconnection, on every tab. A
// cached page is gzipped in the background (clients get the identity body
// until the gzipped one is ready). Pages are small (the sidebar asks for
// a few hundred sessions); the whole listing is not kept (at 100,000
// sessions it was 68 MB of JSON, and as much again of encoded items):
// StreamList writes it as it encodes it. The cache holds at most
// maxCached bytes. The zero value is ready; Wait ends with the
// background compressions.
type ListCache struct {
	build sync.Mutex // one build at a time; the others wait for it

	mu     sync.RWMutex
	bodies map[string]*cachedList
	held   int // bytes of bodies
	bg     sync.WaitGroup

	// NoGzip leaves compression out, for benchmarks of the rebuild alone.
	NoGzip bool
}

// Gen is what a cached listing depends on: the catalog's generation, the
// workers' running state's and the page's order's (pins and archive).
type Gen struct{ Catalog, Running, Order uint64 }

// ListSource produces one listing: the sessions, their total and counts,
// and each session's Links; Archived, when set, is the "archived" count
// the answer adds.
type ListSource struct {
	Gen      func() Gen
	List     func() (Listed, error)
	Links    func(Meta) Links
	Archived func(Listed) int
}

type cachedList struct {
	gen  Gen
	body []byte
	gz   []byte // the gzipped body once compressed; guarded by ListCache.mu
}

// gzipOver is the size above which a cached listing is also kept
// gzipped; maxCached bounds the bytes of the cached bodies.
const (
	gzipOver  = 64 << 10
	maxCached = 8 << 20
)

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
		l, err := src.List()
		if err != nil {
			return nil, nil, err
		}
		var buf bytes.Buffer
		writeList(&buf, l, src)
		return buf.Bytes(), nil, nil
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
	return g.Catalog >= want.Catalog && g.Running >= want.Running && g.Order >= want.Order
}

// rebuild encodes the listing key again; c.build is held.
func (c *ListCache) rebuild(key string, src ListSource) ([]byte, []byte, error) {
	gen := src.Gen()
	l, err := src.List()
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	writeList(&buf, l, src)
	e := &cachedList{gen: gen, body: buf.Bytes()}
	c.mu.Lock()
	if old := c.bodies[key]; old != nil {
		c.held -= len(old.body) + len(old.gz)
	}
	if c.bodies == nil || c.held+len(e.body) > maxCached {
		c.bodies, c.held = map[string]*cachedList{}, 0
	}
	c.bodies[key] = e
	c.held += len(e.body)
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
	c.held += len(e.gz)
	c.mu.Unlock()
}

// StreamList writes the listing of src to w as it encodes it, gzipped
// when gz (w then gets the compressed bytes): nothing of it is kept.
// begin is called once the listing is read, before the first byte.
func StreamList(w io.Writer, gz bool, src ListSource, begin func()) error {
	l, err := src.List()
	if err != nil {
		return err
	}
	begin()
	bw := bufio.NewWriterSize(w, 32<<10)
	if !gz {
		writeList(bw, l, src)
		return bw.Flush()
	}
	zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
	writeList(zw, l, src)
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// writeList writes {"sessions":[…],"total":N} (and "projects" and
// "archived" when l and src have them) and a newline, the bytes
// json.Marshal would write.
func writeList(w io.Writer, l Listed, src ListSource) {
	io.WriteString(w, `{"sessions":[`)
	for i, m := range l.Metas {
		if i > 0 {
			io.WriteString(w, ",")
		}
		b, _ := json.Marshal(ItemOf(m, src.Links(m)))
		w.Write(b)
	}
	io.WriteString(w, `],"total":`+strconv.Itoa(l.Total))
	if l.Projects != nil {
		b, _ := json.Marshal(l.Projects)
		io.WriteString(w, `,"projects":`)
		w.Write(b)
	}
	if src.Archived != nil {
		io.WriteString(w, `,"archived":`+strconv.Itoa(src.Archived(l)))
	}
	io.WriteString(w, "}\n")
}
