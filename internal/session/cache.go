package session

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Cache keeps the last few parsed sessions, keyed by path and checked on
// every use against the file's identity (device and inode), size and
// mtime, so paging through a huge session's context parses the file once,
// not per page, and an atomic replace with the same size and mtime is
// still seen. Its byte budget counts the parse's memory (MemSize), not the
// file's size. A Session it returns is shared: callers only read it.
type Cache struct {
	maxFiles int
	maxBytes int64

	mu    sync.Mutex
	items map[string]*cached
}

type cached struct {
	mu    sync.Mutex  // held while parsing, so concurrent loads parse once
	fi    os.FileInfo // the file as parsed: device, inode, size, mtime
	s     *Session
	tree  []TreeNode // built on first use for this parse
	used  time.Time  // guarded by Cache.mu
	bytes int64      // guarded by Cache.mu
}

// NewCache returns a cache of at most maxFiles parses holding at most
// maxBytes (MemSize) beyond the one in use.
func NewCache(maxFiles int, maxBytes int64) *Cache {
	return &Cache{maxFiles: maxFiles, maxBytes: maxBytes, items: map[string]*cached{}}
}

// Load returns the current parse of the file at path. A missing file is
// an error wrapping fs.ErrNotExist.
func (c *Cache) Load(path string) (*Session, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	it := c.item(path)
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.s != nil && sameFile(it.fi, st) {
		return it.s, nil
	}
	s, fi, err := readSession(path)
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	it.s, it.fi, it.tree = s, fi, nil
	c.mu.Lock()
	it.bytes = s.MemSize()
	c.mu.Unlock()
	c.evict(path)
	return s, nil
}

// item returns the cache slot of path, marked as just used.
func (c *Cache) item(path string) *cached {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.items[path]
	if it == nil {
		it = &cached{}
		c.items[path] = it
	}
	it.used = time.Now()
	return it
}

// sameFile reports whether cur is the file parsed as was: same device and
// inode, size and mtime.
func sameFile(was, cur os.FileInfo) bool {
	return was != nil && os.SameFile(was, cur) && was.Size() == cur.Size() && was.ModTime().Equal(cur.ModTime())
}

// readSession parses the file at path and returns the identity of what it
// read: the stat of the open file after reading, with the size read (so
// bytes appended during the read make the next use parse again).
func readSession(path string) (*Session, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() != int64(len(data)) {
		fi = readSize{fi, int64(len(data))}
	}
	return Parse(data), fi, nil
}

// readSize is a FileInfo whose size is what was read.
type readSize struct {
	os.FileInfo
	size int64
}

func (r readSize) Size() int64 { return r.size }

// evict drops least recently used entries beyond the limits, except keep.
func (c *Cache) evict(keep string) {
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

// Forget drops a path after piweb moved or rewrote it.
func (c *Cache) Forget(path string) {
	c.mu.Lock()
	delete(c.items, path)
	c.mu.Unlock()
}

// Cached reports whether a parse of path is kept.
func (c *Cache) Cached(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, found := c.items[path]
	return found
}

// Tree returns the compact tree of s (the parse Load returned for path),
// building it once per parse: for a huge session it is the most expensive
// part of GET /api/sessions/{id}.
func (c *Cache) Tree(path string, s *Session, labels map[string]string) []TreeNode {
	c.mu.Lock()
	it := c.items[path]
	c.mu.Unlock()
	if it == nil {
		return s.CompactTree(labels)
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.s != s {
		return s.CompactTree(labels)
	}
	if it.tree == nil {
		it.tree = s.CompactTree(labels)
	}
	return it.tree
}
