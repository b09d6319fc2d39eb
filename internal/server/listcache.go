package server

import (
	"bytes"
	"compress/gzip"
	"sync"
)

// listCache keeps encoded listings until the catalog or a worker's running
// state changes (serving the previous one while a rebuild runs): the sidebar asks for the same listing on every change
// event, and encoding 5,000 sessions costs far more than serving bytes.
type listCache struct {
	build  sync.Mutex // one build at a time; the others wait for it
	mu     sync.RWMutex
	bodies map[string]cachedList
}

type cachedList struct {
	catGen, runGen uint64
	body, gz       []byte // gz is the gzipped body, for big listings
}

// gzipOver is the size above which a cached listing is also kept
// gzipped: 5,000 sessions are ~3 MB of JSON and ~10x less compressed.
const gzipOver = 64 << 10

// get returns the cached body (and its gzipped form, if any) for key, or
// builds it. Only catalogs that report a generation are cached.
func (c *listCache) get(s *Server, key string, cacheable bool, build func() ([]byte, error)) ([]byte, []byte, error) {
	g, hasGen := s.cat.(interface{ Generation() uint64 })
	if !hasGen || !cacheable {
		b, err := build()
		return b, nil, err
	}
	fresh := func() (cachedList, bool) {
		c.mu.RLock()
		defer c.mu.RUnlock()
		e, found := c.bodies[key]
		return e, found && e.catGen == g.Generation() && e.runGen == s.runGen.Load()
	}
	e, hit := fresh()
	if hit {
		return e.body, e.gz, nil
	}
	// While another request rebuilds, answer with the previous listing
	// rather than wait: it is at most one rebuild old, and the change
	// event that made it stale reaches the client anyway.
	if !c.build.TryLock() {
		if e.body != nil {
			return e.body, e.gz, nil
		}
		c.build.Lock()
	}
	defer c.build.Unlock()
	if e, hit := fresh(); hit {
		return e.body, e.gz, nil
	}
	catGen, runGen := g.Generation(), s.runGen.Load()
	b, err := build()
	if err != nil {
		return nil, nil, err
	}
	b = append(b, '\n')
	var gz []byte
	if len(b) > gzipOver {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(b)
		zw.Close()
		gz = buf.Bytes()
	}
	c.mu.Lock()
	if c.bodies == nil || len(c.bodies) > 64 {
		c.bodies = map[string]cachedList{}
	}
	c.bodies[key] = cachedList{catGen, runGen, b, gz}
	c.mu.Unlock()
	return b, gz, nil
}
