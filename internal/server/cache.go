package server

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"piweb/internal/session"
)

// sessionCache keeps the last few parsed sessions, keyed by path and
// checked against size and mtime on every use, so paging through a huge
// session's context parses the file once, not per page.
type sessionCache struct {
	maxFiles int
	maxBytes int64

	mu    sync.Mutex
	items map[string]*cached
}

type cached struct {
	mu    sync.Mutex // held while parsing, so concurrent loads parse once
	size  int64
	mtime time.Time
	s     *session.Session
	tree  []treeNode // built on first use for this parse
	used  time.Time  // guarded by sessionCache.mu
	bytes int64      // guarded by sessionCache.mu
}

func newSessionCache(maxFiles int, maxBytes int64) *sessionCache {
	return &sessionCache{maxFiles: maxFiles, maxBytes: maxBytes, items: map[string]*cached{}}
}

// load returns the current parse of the file at path.
func (c *sessionCache) load(path string) (*session.Session, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errorf(NotFound, "session file is gone")
	} else if err != nil {
		return nil, wrap(Internal, err, "cannot read session")
	}
	c.mu.Lock()
	it := c.items[path]
	if it == nil {
		it = &cached{}
		c.items[path] = it
	}
	it.used = time.Now()
	c.mu.Unlock()

	it.mu.Lock()
	defer it.mu.Unlock()
	if it.s != nil && it.size == st.Size() && it.mtime.Equal(st.ModTime()) {
		return it.s, nil
	}
	s, err := session.ReadFile(path)
	if err != nil {
		return nil, wrap(Internal, err, "cannot read session")
	}
	it.s, it.size, it.mtime, it.tree = s, st.Size(), st.ModTime(), nil
	c.mu.Lock()
	it.bytes = st.Size()
	c.mu.Unlock()
	c.evict(path)
	return s, nil
}

// evict drops least recently used entries beyond the limits, except keep.
func (c *sessionCache) evict(keep string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		var total int64
		var oldest string
		for p, it := range c.items {
			total += it.bytes
			if p != keep && (oldest == "" || it.used.Before(c.items[oldest].used)) {
				oldest = p
			}
		}
		if oldest == "" || (len(c.items) <= c.maxFiles && total <= c.maxBytes) {
			return
		}
		delete(c.items, oldest)
	}
}

// forget drops a path after piweb moved or rewrote it.
func (c *sessionCache) forget(path string) {
	c.mu.Lock()
	delete(c.items, path)
	c.mu.Unlock()
}

// tree returns the compact tree of sess (the parse load returned for
// path), building it once per parse: for a huge session it is the most
// expensive part of GET /api/sessions/{id}.
func (c *sessionCache) tree(path string, sess *session.Session, build func() []treeNode) []treeNode {
	c.mu.Lock()
	it := c.items[path]
	c.mu.Unlock()
	if it == nil {
		return build()
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.s != sess {
		return build()
	}
	if it.tree == nil {
		it.tree = build()
	}
	return it.tree
}
