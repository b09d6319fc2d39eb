package sessionstore

import (
	"bytes"
	"io"
	"os"

	"piweb/pisession"
)

// scanned is the last scan of a cached slot's file (Cache.ScanTree).
type scanned struct {
	s    *pisession.TreeScanner
	fi   os.FileInfo // the file as scanned, its size the bytes read
	tail []byte      // the last bytes read, up to tailLen
}

// ScanTree reads what a session's detail needs of the file at path a line
// at a time (pisession.ScanTree), keeping its compact tree, not its parse:
// a huge session's parse is held at about 1.3 times its size (issue 24
// item 4), a scan at about a tenth. ok is false when the file needs the
// parse (which reports what is wrong with it, or that it is gone). The
// cache keeps the scan (its MemSize counted in the byte budget and told
// to OnHeld, as a parse's): an unchanged file is not read again, and a file that only
// grew (the same file, the bytes before its old end unchanged: pi only
// appends) has only its appended bytes read. Anything else (a rewrite, a
// shrink, a file the scan does not take) drops it and scans again.
func (c *Cache) ScanTree(path string) (t *pisession.TreeScan, ok bool) {
	it := c.item(path)
	it.mu.Lock()
	defer it.mu.Unlock()
	sc := it.scan
	c.setScan(it, nil)
	sc, err := sc.update(path, c.countRead)
	if err != nil || sc == nil {
		return nil, false
	}
	if t, ok, err = sc.s.Result(); !ok || err != nil {
		return nil, false
	}
	c.setScan(it, sc)
	c.evict(path)
	return t, true
}

// setScan records the slot's scan and its bytes. it.mu is held.
func (c *Cache) setScan(it *cached, sc *scanned) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it.scan, it.scanBytes = sc, 0
	if sc != nil {
		it.scanBytes = sc.s.MemSize()
	}
	c.report()
}

// update brings the scan up to date with the file at path (a new scan
// when sc is nil or cannot go on); nil when the scan does not take the
// file. counted counts the bytes read.
func (sc *scanned) update(path string, counted func(int64)) (*scanned, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if sc != nil && sameFile(sc.fi, fi) {
		return sc, nil
	}
	if !sc.grew(f, fi) {
		sc = &scanned{s: pisession.NewTreeScanner()}
	}
	r := countingReader{f, counted}
	if ok, err := sc.s.Read(r); !ok || err != nil {
		return nil, err
	}
	return sc, sc.mark(f, r)
}

// grew reports whether f (whose stat is fi) is the file scanned, grown
// by appends after the bytes read, which the scan can go on with.
func (sc *scanned) grew(f *os.File, fi os.FileInfo) bool {
	if sc == nil || !sc.s.Resumable() || !os.SameFile(sc.fi, fi) || fi.Size() <= sc.fi.Size() {
		return false
	}
	k := int64(len(sc.tail))
	b := make([]byte, k)
	n, err := f.ReadAt(b, sc.fi.Size()-k)
	return err == nil && int64(n) == k && bytes.Equal(b, sc.tail)
}

// mark records the file as read: its stat with the size read (so bytes
// appended meanwhile make the next use read them), and its last bytes.
func (sc *scanned) mark(f *os.File, r io.ReaderAt) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := sc.s.Size()
	if fi.Size() != size {
		fi = readSize{fi, size}
	}
	sc.fi = fi
	sc.tail = make([]byte, min(size, tailLen))
	_, err = f.ReadAt(sc.tail, size-int64(len(sc.tail)))
	return err
}

// countingReader tells counted how many bytes each read returns.
type countingReader struct {
	r       io.ReaderAt
	counted func(int64)
}

func (c countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	if c.counted != nil {
		c.counted(int64(n))
	}
	return n, err
}
