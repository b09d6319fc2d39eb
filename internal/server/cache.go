package server

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"piweb/internal/session"
)

// sessionCache keeps the last few parsed sessions, keyed by path and
// checked on every use against the file's identity (device and inode),
// size and mtime, so paging through a huge session's context parses the
// file once, not per page, and an atomic replace with the same size and
// mtime is still seen. Its byte budget counts the parse's memory
// (Session.MemSize), not the file's size.
type sessionCache struct {
	maxFiles int
	maxBytes int64

	mu    sync.Mutex
	items map[string]*cached
}

type cached struct {
	mu    sync.Mutex  // held while parsing, so concurrent loads parse once
	fi    os.FileInfo // the file as parsed: device, inode, size, mtime
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
	if it.s != nil && sameFile(it.fi, st) {
		return it.s, nil
	}
	s, fi, err := readSession(path)
	if err != nil {
		return nil, wrap(Internal, err, "cannot read session")
	}
	it.s, it.fi, it.tree = s, fi, nil
	c.mu.Lock()
	it.bytes = s.MemSize()
	c.mu.Unlock()
	c.evict(path)
	return s, nil
}

// sameFile reports whether cur is the file parsed as was: same device and
// inode, size and mtime.
func sameFile(was, cur os.FileInfo) bool {
	return was != nil && os.SameFile(was, cur) && was.Size() == cur.Size() && was.ModTime().Equal(cur.ModTime())
}

// readSession parses the file at path and returns the identity of what it
// read: the stat of the open file after reading, with the size read (so
// bytes appended during the read make the next use parse again).
func readSession(path string) (*session.Session, os.FileInfo, error) {
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
	return session.Parse(data), fi, nil
}

// readSize is a FileInfo whose size is what was read.
type readSize struct {
	os.FileInfo
	size int64
}

func (r readSize) Size() int64 { return r.size }

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
