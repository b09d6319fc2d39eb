package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strconv"
	"sync"

	"piweb/internal/catalog"
)

// listCache keeps encoded listings until the catalog or a worker's running
// state changes: the sidebar asks for the same listing on every change
// event. A request must not pay for a whole listing when one session
// changed (5,000 sessions are ~3 MB of JSON; encoding them all took
// 0.2-1 s on a loaded 2-core machine), so a rebuild reuses the encoded item
// of every session whose listing did not change, and compresses in the
// background (clients get the identity body until the gzipped one is
// ready).
type listCache struct {
	build sync.Mutex // one build at a time; the others wait for it
	items itemCache  // guarded by build

	mu     sync.RWMutex
	bodies map[string]*cachedList

	noGzip bool // for benchmarks of the rebuild alone
}

type cachedList struct {
	catGen, runGen uint64
	body           []byte
	gz             []byte // the gzipped body once compressed; guarded by listCache.mu
}

// gzipOver is the size above which a cached listing is also kept
// gzipped: 5,000 sessions are ~3 MB of JSON and ~10x less compressed.
const gzipOver = 64 << 10

// get returns the cached body (and its gzipped form, if ready) for key,
// or builds it from list.
func (c *listCache) get(s *Server, key string, cacheable bool, list func() ([]Meta, int, error)) ([]byte, []byte, error) {
	g := s.cat
	if !cacheable {
		metas, total, err := list()
		if err != nil {
			return nil, nil, err
		}
		return s.encodeList(metas, total, nil), nil, nil
	}
	fresh := func() (*cachedList, []byte, bool) {
		c.mu.RLock()
		defer c.mu.RUnlock()
		e := c.bodies[key]
		if e == nil {
			return nil, nil, false
		}
		return e, e.gz, e.catGen == g.Generation() && e.runGen == s.runGen.Load()
	}
	e, gz, hit := fresh()
	if hit {
		return e.body, gz, nil
	}
	// While another request rebuilds, answer with the previous listing
	// rather than wait: it is at most one rebuild old, and the change
	// event that made it stale reaches the client anyway.
	if !c.build.TryLock() {
		if e != nil {
			return e.body, gz, nil
		}
		c.build.Lock()
	}
	defer c.build.Unlock()
	if e, gz, hit := fresh(); hit {
		return e.body, gz, nil
	}
	catGen, runGen := g.Generation(), s.runGen.Load()
	metas, total, err := list()
	if err != nil {
		return nil, nil, err
	}
	e = &cachedList{catGen: catGen, runGen: runGen, body: s.encodeList(metas, total, &c.items)}
	c.mu.Lock()
	if c.bodies == nil || len(c.bodies) > 64 {
		c.bodies = map[string]*cachedList{}
	}
	c.bodies[key] = e
	c.mu.Unlock()
	if len(e.body) > gzipOver && !c.noGzip {
		s.bg.Go(func() { c.compress(e) }) // tracked: Close waits for it
	}
	return e.body, nil, nil
}

// compress gzips a cached body for the clients that accept it.
func (c *listCache) compress(e *cachedList) {
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
func (s *Server) encodeList(metas []Meta, total int, items *itemCache) []byte {
	buf := make([]byte, 0, 64+len(metas)*600)
	buf = append(buf, `{"sessions":[`...)
	for i, m := range metas {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, items.encode(m, s.links(m))...)
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
	links itemLinks
	b     []byte
}

// encode returns the JSON of the item of m, reusing the last encoding
// when neither its Meta nor its links changed.
func (c *itemCache) encode(m Meta, l itemLinks) []byte {
	if c != nil {
		if e, found := c.m[m.Path]; found && catalog.Same(e.meta, m) && e.links.equal(l) {
			return e.b
		}
	}
	b, _ := json.Marshal(itemOf(m, l))
	if c != nil {
		if c.m == nil || c.built > 4*len(c.m)+10000 {
			c.m, c.built = map[string]encodedItem{}, 0 // forget removed sessions now and then
		}
		c.m[m.Path] = encodedItem{meta: m, links: l, b: b}
		c.built++
	}
	return b
}
