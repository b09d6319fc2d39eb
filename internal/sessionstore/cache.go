package sessionstore

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"sync"
	"time"

	"piweb/internal/errs"
	"piweb/pisession"
)

// Cache keeps the last few parsed sessions, keyed by path and checked on
// every use against the file's identity (device and inode), size and
// mtime, so paging through a huge session's context parses the file once,
// not per page, and an atomic replace with the same size and mtime is
// still seen. A file that grew since it was parsed (the same file, the 64
// bytes before its old end unchanged: pi only appends) has only its new
// bytes read and parsed (Growing), so a huge session followed live costs
// its appended lines, not its size, per look. Its byte budget counts the
// parse's memory (MemSize), not the file's size. A Session it returns is
// shared: callers only read it.
type Cache struct {
	maxFiles int
	maxBytes int64

	mu      sync.Mutex
	items   map[string]*cached
	reading int64       // bytes of the files being parsed
	held    func(int64) // told what the cache holds (OnHeld)
	// countRead, when set, is told the bytes each scan reads (ScanTree).
	countRead func(int64)
}

type cached struct {
	mu    sync.Mutex  // held while parsing, so concurrent loads parse once
	fi    os.FileInfo // the file as parsed: device, inode, size, mtime
	s     *pisession.Session
	g     *pisession.Growing   // what s was finished from; nil when it cannot grow
	tail  []byte               // the last bytes read, up to tailLen
	tree  []pisession.TreeNode // built on first use for this parse
	scan  *scanned             // the last scan of the file (ScanTree)
	used  time.Time            // guarded by Cache.mu
	bytes int64                // guarded by Cache.mu: the parse's MemSize
	// scanBytes is the scan's MemSize, guarded by Cache.mu.
	scanBytes int64
}

// tailLen is how many bytes before a parsed file's end must be unchanged
// for the file to count as grown rather than rewritten.
const tailLen = 64

// NewCache returns a cache of at most maxFiles parses holding at most
// maxBytes (MemSize) beyond the one in use.
func NewCache(maxFiles int, maxBytes int64) *Cache {
	return &Cache{maxFiles: maxFiles, maxBytes: maxBytes, items: map[string]*cached{}}
}

// Load returns the current parse of the file at path. A missing file is
// an error wrapping fs.ErrNotExist.
func (c *Cache) Load(path string) (*pisession.Session, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, readErr(err)
	}
	it := c.item(path)
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.s != nil && sameFile(it.fi, st) {
		return it.s, nil
	}
	c.parsing(st.Size())
	err = it.read(path)
	c.parsing(-st.Size())
	if err != nil {
		return nil, readErr(err)
	}
	c.mu.Lock()
	it.bytes = it.s.MemSize()
	c.mu.Unlock()
	c.evict(path)
	return it.s, nil
}

// OnHeld has f told how many bytes the cache holds (the MemSize of its
// parses, and the size of each file being parsed) whenever that changes:
// serve's soft memory limit rises by it (internal/memlimit), so that a
// parse the cache's own budget allows (a 1 GB session's) is not collected
// against a limit meant for the rest of serve.
func (c *Cache) OnHeld(f func(int64)) {
	c.mu.Lock()
	c.held = f
	c.report()
	c.mu.Unlock()
}

// parsing counts n more bytes of files being parsed (less when negative).
func (c *Cache) parsing(n int64) {
	c.mu.Lock()
	c.reading += n
	c.report()
	c.mu.Unlock()
}

// report tells OnHeld's function what the cache holds. c.mu is held.
func (c *Cache) report() {
	if c.held == nil {
		return
	}
	total := c.reading
	for _, it := range c.items {
		total += it.bytes + it.scanBytes
	}
	c.held(total)
}

// readErr is a failure to read a session file: not found when the file
// is gone, else piweb's own failure, whose cause the client is not told.
func readErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errs.E("read session", errs.NotFound, "session file is gone", err)
	}
	return errs.E("read session", errs.Internal, "cannot read session", err)
}

// read brings the slot up to date with the file at path: the appended
// bytes only when the file grew, else the whole file. it.mu is held.
func (it *cached) read(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if it.g != nil && os.SameFile(it.fi, fi) && fi.Size() > it.fi.Size() {
		if grown, err := it.grow(f); grown || err != nil {
			return err
		}
	}
	data, err := readAll(f, fi.Size())
	if err != nil {
		return err
	}
	g := new(pisession.Growing)
	g.Add(data)
	s, ok := g.Session()
	if !ok {
		s, g = pisession.Parse(data), nil
	}
	return it.set(f, s, g, data)
}

// readAll reads r to its end into a buffer of the size it is expected to
// have (with a little room for lines appended meanwhile), which grows only
// if it is longer: io.ReadAll's doubling would hold up to twice a huge
// session, and a parse holds its bytes for as long as it is cached.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+4096)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// grow reads and parses what was appended to f since it was parsed, and
// reports false (nothing changed) when the bytes before the old end are
// not the ones read then.
func (it *cached) grow(f *os.File) (bool, error) {
	old := it.fi.Size()
	k := int64(len(it.tail))
	data, err := readAll(io.NewSectionReader(f, old-k, math.MaxInt64-old), 0)
	if err != nil || !bytes.Equal(data[:min(k, int64(len(data)))], it.tail) || int64(len(data)) <= k {
		return false, err
	}
	g := it.g
	it.g = nil // fed from here on: whatever happens, it no longer matches it.s
	g.Add(data[k:])
	s, ok := g.Session()
	if !ok {
		return false, nil
	}
	return true, it.set(f, s, g, data)
}

// set records a parse of f: its session, what it grows from, and the
// identity of what was read (the stat of the open file after reading,
// with the size read, so bytes appended meanwhile make the next use read
// again).
func (it *cached) set(f *os.File, s *pisession.Session, g *pisession.Growing, last []byte) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := s.Size
	if fi.Size() != size {
		fi = readSize{fi, size}
	}
	it.s, it.g, it.fi, it.tree = s, g, fi, nil
	it.tail = bytes.Clone(last[max(0, len(last)-tailLen):])
	return nil
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
			total += it.bytes + it.scanBytes
			if p != keep && (oldest == "" || it.used.Before(c.items[oldest].used)) {
				oldest = p
			}
		}
		if oldest == "" || (len(c.items) <= c.maxFiles && total <= c.maxBytes) {
			c.report()
			return
		}
		delete(c.items, oldest)
	}
}

// Forget drops a path after piweb moved or rewrote it.
func (c *Cache) Forget(path string) {
	c.mu.Lock()
	delete(c.items, path)
	c.report()
	c.mu.Unlock()
}

// Cached reports whether a parse of path is kept.
func (c *Cache) Cached(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.items[path]
	return it != nil && it.bytes > 0
}

// Ready reports whether a current parse of path is kept, without waiting
// for one underway: a reader that has a cheaper way to answer than a
// parse takes it then.
func (c *Cache) Ready(path string) bool {
	c.mu.Lock()
	it := c.items[path]
	c.mu.Unlock()
	if it == nil || !it.mu.TryLock() {
		return false
	}
	defer it.mu.Unlock()
	st, err := os.Stat(path)
	return err == nil && it.s != nil && sameFile(it.fi, st)
}

// Tree returns the compact tree of s (the parse Load returned for path),
// building it once per parse: for a huge session it is the most expensive
// part of GET /api/sessions/{id}.
func (c *Cache) Tree(path string, s *pisession.Session, labels map[string]string) []pisession.TreeNode {
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
