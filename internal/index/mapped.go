package index

import (
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
)

// mapMin is the size from which the cold listing (skim) maps a file
// instead of reading it: reading copies every byte from the page cache
// first (a quarter of that listing's CPU time), mapping lets the
// validator read the page cache itself (8-12% less CPU for the whole
// listing, BenchmarkSkimListJSON). Mapping every file, or those of 64 KB
// and more, measured the same as from 1 MB; smaller files are read.
const mapMin = 1 << 20

// mapPart is the nominal size of the parts a mapped file is listed in:
// the parts of one file are scanned by any of the workers, in any order,
// so that a few big files keep both cores busy to the end; and the pages
// a part touched count in the process's resident memory only until it
// is unmapped (two whole 157 MB files mapped at once showed as 300 MB).
const mapPart = 8 << 20

// A mapped file is listed in parts. A '\n' never occurs inside a JSON
// string, so every line of pi's file is a whole record or a damaged line
// of its own, and the listing of a file is a fold over its lines whose
// result adds up across consecutive pieces (body.then), as the read
// (stream) already relies on. A part holds the lines that start in its
// nominal range [i*mapPart, (i+1)*mapPart), the first from the part
// before it to the next newline; the last part runs to the file's end
// and takes its final line without newline as the listing does. Part 0
// goes through the update as a read's first piece does (header, first
// line); the worker that finishes a file's last part adds the others'
// bodies in file order. A part that faults (the file shrank under the
// mapping: a recovered panic), a file that cannot be mapped, or a
// header not on part 0's complete lines send the whole file to the read.

// split is one mapped file being listed in parts.
type split struct {
	ix      *Index
	path    string
	listAll bool
	starts  []int64 // the parts' nominal starts, from 0 up

	once  sync.Once
	f     *os.File
	owned bool // the split opened f, and closes it
	fid   fileID
	err   error // open or stat failed

	u     *update // part 0's
	parts []partScan
	left  atomic.Int64
}

// partScan is what a part other than the first found.
type partScan struct {
	ok, empty, last bool // last: ends the file
	hasTail         bool
	body, tail      body // complete lines; the final line without newline
}

// newSplit is a split of the file at path, expected to hold size bytes,
// in parts of part bytes.
func (ix *Index) newSplit(path string, listAll bool, size, part int64) *split {
	starts := []int64{0}
	for a := part; a < size; a += part {
		starts = append(starts, a)
	}
	return ix.splitAt(path, listAll, starts)
}

// splitAt is a split of the file at path in parts from the nominal
// starts, 0 first, ascending.
func (ix *Index) splitAt(path string, listAll bool, starts []int64) *split {
	s := &split{ix: ix, path: path, listAll: listAll, starts: starts, parts: make([]partScan, len(starts))}
	s.left.Store(int64(len(starts)))
	return s
}

// use gives the split a file already open and its identity.
func (s *split) use(f *os.File, fid fileID) {
	s.once.Do(func() { s.f, s.fid = f, fid })
}

func (s *split) open() {
	f, err := s.ix.open(s.path)
	if err != nil {
		s.err = err
		return
	}
	fi, err := f.Stat()
	of, isFile := f.(*os.File)
	switch {
	case err != nil:
		s.err = err
	case !isFile:
		s.err = syscall.EINVAL // not mappable: read instead
		s.fid = idOf(fi)
	default:
		s.f, s.owned, s.fid = of, true, idOf(fi)
		return
	}
	f.Close()
}

// scan lists part i; the call that ends the file's last part returns
// the file's snapshot entry, and done.
func (s *split) scan(i int) (e snapEntry, done bool) {
	s.once.Do(s.open)
	if s.err == nil && s.fid.regular {
		if i == 0 {
			s.parts[0].ok = s.scanFirst()
		} else {
			s.parts[i].ok = s.scanPart(i, &s.parts[i])
		}
	}
	if s.left.Add(-1) > 0 {
		return snapEntry{}, false
	}
	return s.finish(), true
}

// scanAll lists every part in turn, for the one file's entry.
func (s *split) scanAll() snapEntry {
	for i := range s.parts {
		if e, done := s.scan(i); done {
			return e
		}
	}
	panic("index: split without parts")
}

// scanFirst folds part 0 into the split's update.
func (s *split) scanFirst() bool {
	u := &update{path: s.path, listAll: s.listAll, full: true, listOnly: true, fid: s.fid}
	return s.mapPart(0, func(data []byte, start, end int64) bool {
		u.begin(0)
		k := u.fold(data, 0)
		s.ix.bytesRead.Add(int64(len(data)))
		if end == s.fid.size {
			u.end(data[k:])
			s.parts[0].last = true
		}
		s.u = u
		return end == s.fid.size || k == len(data)
	})
}

// scanPart lists part i > 0 into p.
func (s *split) scanPart(i int, p *partScan) bool {
	return s.mapPart(i, func(data []byte, start, end int64) bool {
		c := listChunk(data, start, 0, false, nil)
		s.ix.bytesRead.Add(int64(len(data)))
		p.body = c.body
		if end < s.fid.size {
			return c.consumed == len(data)
		}
		p.last = true
		if tail := data[c.consumed:]; len(bytes.TrimSpace(tail)) > 0 {
			p.tail, p.hasTail = listChunk(tail, start+int64(c.consumed), 0, true, nil).body, true
		}
		return true
	})
}

// mapPart maps the file from part i's nominal start to its end and gives
// scan part i's lines, from file offset start to end; a part without a
// line start is empty. ok is false when the file could not be mapped or
// faulted under scan.
func (s *split) mapPart(i int, scan func(data []byte, start, end int64) bool) (ok bool) {
	size := s.fid.size
	a := s.starts[i]
	if a >= size {
		s.parts[i].empty = true
		return true
	}
	b := size
	if i < len(s.parts)-1 {
		b = min(size, s.starts[i+1])
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			ok = false
		}
	}()
	from := max(a-1, 0) &^ int64(os.Getpagesize()-1)
	data, err := mapOpen(s.f, from, size-from)
	if err != nil {
		return false
	}
	defer syscall.Munmap(data)
	start, end := lineStart(data, from, a), size
	if b < size {
		end = lineStart(data, from, b)
	}
	if start >= end {
		s.parts[i].empty = true
		return true
	}
	return scan(data[start-from:end-from], start, end)
}

// lineStart is the offset of the first line that starts at or after
// file offset x, in data mapped from offset from (the file's end when
// none does).
func lineStart(data []byte, from, x int64) int64 {
	if x == 0 {
		return 0
	}
	nl := bytes.IndexByte(data[x-1-from:], '\n')
	if nl < 0 {
		return from + int64(len(data))
	}
	return x + int64(nl)
}

// finish merges the parts into the file's entry, or reads the file when
// it could not be listed from its mapping (the read also tells an
// unreadable file).
func (s *split) finish() snapEntry {
	if s.owned {
		s.f.Close()
	}
	if s.err != nil || !s.fid.regular || !s.merge() {
		return s.ix.skimFrom(s.path, s.listAll, math.MaxInt64, 0)
	}
	return entryOf(s.u)
}

// merge adds the parts after the first to its update, in file order; ok
// is false when the file must be read instead.
func (s *split) merge() bool {
	u, ends := s.u, 0
	if u == nil || !s.parts[0].ok {
		return false
	}
	if s.parts[0].last {
		ends++
	} else if !u.hFound {
		return false // the header is further on: the read looks for it
	}
	for _, p := range s.parts[1:] {
		if !p.ok {
			return false
		}
		if p.empty {
			continue
		}
		u.body = u.body.then(p.body)
		if p.last {
			ends++
			u.listBody = u.body
			if p.hasTail {
				u.listBody = u.body.then(p.tail)
			}
			u.meta.finish()
		}
	}
	return ends == 1
}

// mapOpen maps n bytes of the open file f from offset off (a multiple of
// the page size) read-only.
func mapOpen(f *os.File, off, n int64) (data []byte, err error) {
	if n <= 0 || n > math.MaxInt {
		return nil, syscall.EINVAL
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	cerr := rc.Control(func(fd uintptr) {
		data, err = syscall.Mmap(int(fd), off, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if cerr != nil {
		return nil, cerr
	}
	return data, err
}
