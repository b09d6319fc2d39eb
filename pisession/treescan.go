package pisession

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"io"
	"math"
	"slices"
	"unsafe"
)

// TreeScan is what a session's detail takes from a file whose lines all
// parse, read a line at a time (ScanTree): a huge session's detail then
// holds its compact tree, not its parse (issue 24 item 4).
type TreeScan struct {
	// Header is the header's line, as Parse's Header.Raw.
	Header []byte
	// Leaf is the id of the last entry (Parse's Leaf), "" for none.
	Leaf string
	// Tree is CompactTree(Labels) of the parse.
	Tree []TreeNode
	// Labels is the parse's LabelMap.
	Labels map[string]string
	// Problems are the parse's: the structural ones (ids missing or used
	// twice, orphans, cycles), the only ones a file the scan takes has.
	Problems []Problem
}

// ScanTree reads a session file from r (its start to its end) a line at
// a time and returns what Parse of its bytes would give a view of its
// tree: header, leaf, compact tree, labels and problems. ok is false,
// and the scan stops there, at a line Parse would report (not JSON, not
// an object, a missing or repeated header, a CR LF end, a byte order
// mark) or a header of an older version (Parse migrates it); the caller
// parses the file then.
func ScanTree(r io.ReaderAt) (t *TreeScan, ok bool, err error) {
	s := NewTreeScanner()
	if ok, err := s.Read(r); !ok || err != nil {
		return nil, false, err
	}
	return s.Result()
}

// TreeScanner is ScanTree kept between reads of a file that only grows:
// Read goes on from where the last one ended, so a session followed live
// costs its appended lines, not its size, per detail.
type TreeScanner struct {
	sc    treeScanner
	lines int   // the lines read so far
	off   int64 // the bytes read so far (Size)
	whole bool  // the bytes read end with a newline: the next line starts at off
	spent bool  // a line the scan does not take was read
}

// NewTreeScanner returns a scanner at the start of a file.
func NewTreeScanner() *TreeScanner {
	return &TreeScanner{sc: treeScanner{seen: map[string]int{}, linked: true, t: TreeScan{Tree: []TreeNode{}}}, whole: true}
}

// Size is how many bytes of the file the scanner has read.
func (s *TreeScanner) Size() int64 { return s.off }

// Resumable reports whether Read can go on with bytes appended after
// Size: the scan took every line so far and the last ended with a
// newline (else an appended byte would continue it).
func (s *TreeScanner) Resumable() bool { return s.whole && !s.spent }

// Read reads r from Size to its end, as ScanTree does; ok is false when
// the file needs the parse (the scanner is spent then), or when it cannot
// resume (Resumable).
func (s *TreeScanner) Read(r io.ReaderAt) (ok bool, err error) {
	if !s.Resumable() {
		return false, nil
	}
	lines := newLineReader(r, s.off)
	for {
		line, last, err := lines.next()
		if err != nil {
			s.spent = true
			return false, err
		}
		if line == nil {
			return true, nil
		}
		s.lines++
		s.off, s.whole = lines.off, !last
		if !s.sc.add(line, s.lines, last) {
			s.spent = true
			return false, nil
		}
	}
}

// Result is what ScanTree returns of the bytes read so far. Each call
// returns a tree and labels of its own: the scanner keeps reading.
func (s *TreeScanner) Result() (*TreeScan, bool, error) {
	if s.spent {
		return nil, false, nil
	}
	return s.sc.result()
}

// MemSize estimates the memory the scanner holds, for a cache's budget.
func (s *TreeScanner) MemSize() int64 {
	n := int64(len(s.sc.t.Header)) + int64(cap(s.sc.t.Tree))*int64(unsafe.Sizeof(TreeNode{}))
	for _, t := range s.sc.t.Tree {
		n += int64(len(t.ID) + len(t.Type) + len(t.Role) + len(t.Timestamp) + len(t.Text))
		if t.ParentID != nil {
			n += int64(len(*t.ParentID)) + 16
		}
	}
	n += int64(cap(s.sc.links)) * int64(unsafe.Sizeof(link{}))
	for _, l := range s.sc.links {
		n += int64(len(l.key)+len(l.orphan)) + 48 // its key, and the seen map's entry
	}
	for _, e := range s.sc.labels {
		n += int64(len(e.Raw)) + int64(unsafe.Sizeof(*e))
	}
	return n
}

// treeScanner holds what ScanTree keeps of the lines read so far.
type treeScanner struct {
	t       TreeScan
	labels  []*Entry
	links   []link         // every entry's, for the structural check
	seen    map[string]int // the id keys so far, and the last line of each
	linked  bool           // wellLinked so far
	scratch scratchSpace
}

// add takes line n (last: the file's final line, without newline);
// false when the parse would report a problem of the line or migrate.
func (sc *treeScanner) add(line []byte, n int, last bool) bool {
	if isJSBlank(line) {
		return true
	}
	if n == 1 && bytes.HasPrefix(line, bom) || bytes.HasSuffix(line, []byte("\r")) {
		return false
	}
	e := newEntry(line, n, 0, &sc.scratch)
	if e == nil || e.falsy() || e.kind != kindObject {
		return false
	}
	if sc.t.Header == nil {
		return sc.header(e)
	}
	if e.Type == "session" {
		return false // another header
	}
	sc.entry(e)
	return true
}

// header takes the first record: a header of the current version.
func (sc *treeScanner) header(e *Entry) bool {
	if _, ok := e.String("id"); !ok || e.Type != "session" || headerVersion(e) != CurrentVersion {
		return false
	}
	sc.t.Header = bytes.Clone(e.Raw)
	return true
}

// entry takes an entry: its node, its link, and whether the file is
// still well linked (a string id not used before, a parent among the
// ids before it).
func (sc *treeScanner) entry(e *Entry) {
	l := link{key: e.idK(), line: e.Line}
	_, dup := sc.seen[e.idK()]
	if e.HasParent() {
		l.parent = e.parentK()
		if _, found := sc.seen[e.parentK()]; !found {
			l.orphan = clip(e.Field("parentId")) // unless it comes later
			sc.linked = false
		}
	}
	sc.linked = sc.linked && !dup && e.idK()[0] == 's'
	sc.seen[e.idK()] = e.Line
	sc.links = append(sc.links, l)
	if e.ID != "" {
		sc.t.Tree = append(sc.t.Tree, nodeOf(e))
	}
	if e.Type == "label" {
		sc.labels = append(sc.labels, newEntry(bytes.Clone(e.Raw), e.Line, 0, nil))
	}
	sc.t.Leaf = e.ID
}

// result labels the tree once every label is known, and finds the
// structural problems as the parse does when the file is not well linked.
func (sc *treeScanner) result() (*TreeScan, bool, error) {
	if sc.t.Header == nil {
		return nil, false, nil // no header: the parse says what the file is
	}
	t := TreeScan{Header: sc.t.Header, Leaf: sc.t.Leaf, Tree: slices.Clone(sc.t.Tree)}
	t.Labels = (&Session{Entries: sc.labels}).LabelMap()
	for i := range t.Tree {
		if l, found := t.Labels[t.Tree[i].ID]; found {
			t.Tree[i].Label = &l
		}
	}
	if !sc.linked {
		t.Problems = linkDefects(sc.links)
	}
	return &t, true, nil
}

// lineReader splits a file's bytes into lines as Parser does: at each
// newline, the final line without one marked last. A line longer than
// its buffer is read again whole, into a buffer of its size: gathering
// it as it comes would grow a buffer to twice a huge line.
type lineReader struct {
	ra   io.ReaderAt
	r    *bufio.Reader // reads ra from its start
	off  int64         // the file offset of r's next byte
	long []byte        // the last line longer than r's buffer
}

// newLineReader reads ra from off, the start of a line.
func newLineReader(ra io.ReaderAt, off int64) *lineReader {
	return &lineReader{ra: ra, off: off, r: bufio.NewReaderSize(io.NewSectionReader(ra, off, math.MaxInt64-off), 256<<10)}
}

// next returns the next line without its newline, valid until the next
// call; nil at the end.
func (lr *lineReader) next() (line []byte, last bool, err error) {
	start := lr.off
	part, err := lr.r.ReadSlice('\n')
	lr.off += int64(len(part))
	switch {
	case err == nil:
		return part[:len(part)-1], false, nil
	case errors.Is(err, io.EOF) && len(part) == 0:
		return nil, false, nil
	case errors.Is(err, io.EOF):
		return part, true, nil
	case !errors.Is(err, bufio.ErrBufferFull):
		return nil, false, err
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		part, err = lr.r.ReadSlice('\n')
		lr.off += int64(len(part))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return lr.reread(start, err != nil)
}

// reread reads the line at start again whole; last: it has no newline.
func (lr *lineReader) reread(start int64, last bool) ([]byte, bool, error) {
	n := lr.off - start
	if !last {
		n--
	}
	if int64(cap(lr.long)) < n {
		lr.long = nil // the last one's buffer goes before the new one comes
		lr.long = make([]byte, n)
	}
	lr.long = lr.long[:n]
	if k, err := lr.ra.ReadAt(lr.long, start); int64(k) < n {
		return nil, false, cmp.Or(err, io.ErrUnexpectedEOF)
	}
	return lr.long, last, nil
}
