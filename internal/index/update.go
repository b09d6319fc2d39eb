package index

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"

	"piweb/pisession"
)

// update is the parsed change of one file, computed by a worker and applied
// by the writer.
type update struct {
	path    string
	listAll bool
	old     *fileRow
	fid     fileID
	err     error // the file could not be read; the row records it
	removed bool
	// skip marks a text pass that found the file changed; textOnly a text
	// pass update.
	skip, textOnly bool

	full         bool // everything was reparsed: old entries are void
	h            head
	offset, line int64 // end of the complete lines parsed
	tailHash     []byte
	body         body // committed lines only
	listBody     body // with the partial last line, as pi's listing reads it
	meta         meta
	problems     []problemJSON

	// The new complete entries, in file order, and their messages.
	entries []*pisession.Entry
	msgs    []*msg
	// ids are the new entries' ids when entries are not kept (listing only).
	ids []string
	// text is set when entries are to be written to the text index now;
	// textFrom is the offset the entries start at.
	text     bool
	textFrom int64
	// listOnly folds only pi's listing (SkimListJSON): no metadata, no
	// entries or ids, no tail hash.
	listOnly bool

	// Parse state: wantIDs keeps ids; hFound is set once the header line
	// is found; nonBlank once a complete line is not blank; tail holds the
	// last bytes parsed (hashTail).
	wantIDs, hFound, nonBlank bool
	tail                      []byte

	// from and lines are the growth's complete lines as read (an
	// incremental update with subscribers): the one read of appended
	// bytes, which the event hands on. linesOver is set when they
	// exceeded maxEventLines and were dropped.
	from                 int64
	lines                []byte
	wantLines, linesOver bool

	// budget is the workers' read budget (nil outside a pass's workers),
	// held the bytes taken from it until the update is applied.
	budget *budget
	held   int64
	// huge is the size of the longest line read, when it is at least
	// hugeLine: the writer returns the memory once it is applied.
	huge int64
	// tools is the index's Tools option (text of tool output wanted).
	tools bool
	// cut, when set, is where the update takes the file to end (a part of
	// a big new file, oneread.go); prepare clears it when the file is not
	// longer. next then receives the file's row once the update is
	// applied, nil when it was not.
	cut  int64
	part bool // a part of a big new file, cut or the last (with text)
	next chan *fileRow
	// carry is the bytes of the file from the old offset, read already
	// (by the part before); after a cut update, those after its last line.
	carry []byte
}

// maxEventLines bounds the appended bytes one event carries; a bigger
// growth is announced without them (its readers reload the file).
const maxEventLines = 8 << 20

const tailCheck = 64 // bytes before the parsed offset checked on growth

// prepare reads what changed in a file since row old (nil when new) and
// parses it. With text, the new entries' text is extracted for the text
// index when it is current for the file.
// A pass's workers give their read budget b (nil for a single update).
// A panic while reading (a fault of piweb's, which no file's content may
// turn into a dead process) is logged and makes the file an unreadable
// one, retried on the next scan.
func (ix *Index) prepare(path string, listAll bool, old *fileRow, text bool, b *budget) *update {
	return ix.prepareUpdate(&update{path: path, listAll: listAll, old: old, budget: b, tools: ix.o.Tools}, text)
}

// prepareUpdate is prepare for an update set up by the caller.
func (ix *Index) prepareUpdate(u *update, text bool) *update {
	defer func() {
		if v := recover(); v != nil {
			ix.o.Log.Error("index: internal error while reading a file to index", "path", u.path, "panic", v, "stack", string(debug.Stack()))
			u.err = fmt.Errorf("piweb could not index this file (internal error: %v)", v)
		}
	}()
	ix.prepareFile(u, text)
	return u
}

// prepareFile is prepare's work on u.
func (ix *Index) prepareFile(u *update, text bool) {
	path, old, b := u.path, u.old, u.budget
	f, err := ix.open(path)
	if err != nil {
		u.err = err
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		u.err = err
		return
	}
	u.fid = idOf(fi)
	if !u.fid.regular {
		u.err = errors.New("not a regular file")
		return
	}
	if u.cut > 0 && u.cut < u.fid.size {
		u.fid.size = u.cut
	} else {
		u.cut = 0
	}
	u.full = ix.needsFull(f, old, u.fid)
	if u.full && u.part && old != nil {
		u.skip = true // rewritten since the part before: the next sync rereads it
		return
	}
	start := int64(0)
	if !u.full {
		start = old.offset
	}
	// The text of more than a part (a big file, a big append) is left to
	// the text pass, which writes it in parts and lets other writers in
	// between: the listing (and the live views, which hear of appended
	// lines through this update) must not wait for it.
	u.text = text && (u.full || old.textOffset == old.offset) && (u.part || u.fid.size-start <= textPart)
	// Appended ids only matter to subscribers; a file read from the start
	// may have millions of entries.
	u.wantIDs = !u.full || ix.subscribed()
	u.wantLines = !u.full && ix.subscribed()
	if u.text {
		u.held = b.acquire(u.fid.size - start) // kept by the entries until applied
		u.noteHuge(u.fid.size - start)
		err = ix.readParse(f, u, start)
	} else {
		err = ix.stream(f, u, start)
	}
	if err == nil {
		err = u.hashTail(ix, f)
	}
	if err != nil {
		u.err = err
	}
}

// readParse reads [start, size) of the file whole and parses it, taking
// the bytes of u.carry as read already when it goes on from the old
// offset; a cut update keeps what it read after its last line in carry,
// for the next part.
func (ix *Index) readParse(f readFile, u *update, start int64) error {
	data := make([]byte, u.fid.size-start)
	n := 0
	if !u.full && len(u.carry) <= len(data) {
		n = copy(data, u.carry)
	}
	if _, err := ix.readInto(f, data[n:], start+int64(n), u.fid.size); err != nil {
		return err
	}
	u.parse(data, start)
	u.carry = nil
	if u.cut > 0 {
		u.carry = bytes.Clone(data[u.offset-start:])
	}
	return nil
}

// needsFull decides between reading only the appended bytes and reading the
// whole file: a new file, another inode, a shrink, a changed header or
// changed bytes just before the parsed offset all mean a rewrite.
func (ix *Index) needsFull(f readFile, old *fileRow, fid fileID) bool {
	if old == nil || old.err != "" || !old.fid.sameFile(fid) || fid.size < old.fid.size || old.hdrLen == 0 || fid.size < old.offset {
		return true
	}
	hdr, err := ix.readAt(f, old.hdrOff, old.hdrOff+old.hdrLen)
	if err != nil || !bytes.Equal(hashOf(hdr), old.hdrHash) {
		return true
	}
	tail, err := ix.readAt(f, max(0, old.offset-tailCheck), old.offset)
	return err != nil || !bytes.Equal(hashOf(tail), old.tailHash)
}

func hashOf(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// parse folds data, which starts at file offset start and runs to the end
// of the file, into the update.
func (u *update) parse(data []byte, start int64) {
	u.begin(start)
	n := u.fold(data, start)
	u.end(data[n:])
}

// keepLines copies the complete lines just parsed for the event, when
// they are a growth someone listens to.
func (u *update) keepLines(b []byte) {
	if !u.wantLines || u.linesOver || len(b) == 0 {
		return
	}
	if len(u.lines)+len(b) > maxEventLines {
		u.lines, u.linesOver = nil, true
		return
	}
	u.lines = append(u.lines, b...)
}

// begin starts the parse of the bytes from file offset start.
func (u *update) begin(start int64) {
	if !u.full {
		u.h, u.body, u.meta, u.problems, u.line = u.old.head, u.old.body, u.old.meta, u.old.problems, u.old.line
	}
	u.offset, u.textFrom, u.from = start, start, start
}

// fold parses the complete lines of data, which starts at file offset off,
// the offset the update has parsed to, and returns the bytes consumed. It
// may be called for consecutive pieces of a file: every part of the result
// adds up across pieces.
func (u *update) fold(data []byte, off int64) int {
	if u.full && !u.hFound {
		u.lookForHead(data, off)
	}
	var c chunk
	switch {
	case u.listOnly:
		c = listChunk(data, off, int(u.line), false, nil)
	case u.text:
		n := len(u.msgs)
		c, u.msgs = textChunk(data, off, int(u.line), false, u.tools, u.msgs)
		for i, e := range c.entries {
			u.entries = append(u.entries, e)
			u.meta.add(textRec(e), u.msgs[n+i])
		}
	default:
		c = listChunk(data, off, int(u.line), false, func(r rec, m *msg) {
			u.meta.add(r, m)
			if u.wantIDs {
				u.ids = append(u.ids, r.ID)
			}
		})
	}
	u.keepLines(data[:c.consumed])
	u.offset, u.line = off+int64(c.consumed), u.line+int64(c.lines)
	u.body = u.body.then(c.body)
	u.addProblems(c.problems)
	u.noteTail(data[:c.consumed])
	if !u.nonBlank && len(bytes.TrimSpace(data[:c.consumed])) > 0 {
		u.nonBlank = true
	}
	return c.consumed
}

// end finishes the parse with tail, the final line without newline (or
// nothing): it counts for the listing, as pi's listAll reads it, but is
// not committed.
func (u *update) end(tail []byte) {
	if u.full && !u.hFound {
		u.headFromTail(tail)
	}
	u.listBody = u.body
	if len(bytes.TrimSpace(tail)) > 0 {
		t := listChunk(tail, u.offset, int(u.line), true, nil)
		u.listBody = u.body.then(t.body)
	}
	u.meta.finish()
}

// lookForHead looks for the header, the first record, among the complete
// lines of data (at file offset off).
func (u *update) lookForHead(data []byte, off int64) {
	h, ok := findHead(data)
	if !ok {
		return
	}
	h.off += off
	u.h, u.hFound = h, true
	if h.ok && len(h.info.ParentSessionPath) > 0 && !math.IsNaN(h.info.Created) {
		u.meta.forkedAt = int64(h.info.Created)
	}
	if !h.ok {
		u.missingHeader()
	}
}

// headFromTail handles a file without a record on a complete line: a
// first record still without its newline counts for the listing (pi reads
// it) but is not remembered, so that the next change rereads the file.
func (u *update) headFromTail(tail []byte) {
	if len(bytes.TrimSpace(tail)) > 0 {
		u.nonBlank = true
		h, _ := findHead(append(bytes.Clone(tail), '\n'))
		h.off += u.offset
		h.len = 0
		u.h = h
	}
	if !u.h.ok && u.nonBlank {
		u.missingHeader()
	}
}

// missingHeader reports a file pi's listing leaves out; the problem comes
// first, as line 1 is where it is.
func (u *update) missingHeader() {
	p := problemJSON{1, string(pisession.MissingHeader), "first record is not a session header; pi's listing leaves the file out"}
	u.problems = append([]problemJSON{p}, u.problems...)
	if len(u.problems) > maxProblems {
		u.problems = u.problems[:maxProblems]
	}
}

const maxProblems = 100

func (u *update) addProblems(ps []pisession.Problem) {
	for _, p := range ps {
		if len(u.problems) >= maxProblems {
			return
		}
		if !p.IsNote() {
			u.problems = append(u.problems, problemJSON{p.Line, string(p.Kind), p.Message})
		}
	}
}

// noteTail keeps the last tailCheck bytes parsed, for hashTail.
func (u *update) noteTail(b []byte) {
	if len(b) >= tailCheck {
		u.tail = append(u.tail[:0], b[len(b)-tailCheck:]...)
		return
	}
	u.tail = append(u.tail, b...)
	if len(u.tail) > tailCheck {
		u.tail = append(u.tail[:0], u.tail[len(u.tail)-tailCheck:]...)
	}
}

// hashTail remembers the bytes just before the new offset, reading them
// again when the parse saw fewer of them.
func (u *update) hashTail(ix *Index, f readFile) error {
	from := max(0, u.offset-tailCheck)
	if int64(len(u.tail)) == u.offset-from {
		u.tailHash = hashOf(u.tail)
		return nil
	}
	b, err := ix.readAt(f, from, u.offset)
	if err != nil {
		return fmt.Errorf("read tail: %w", err)
	}
	u.tailHash = hashOf(b)
	return nil
}

// readChunk is the read size of the listing pass: big enough that a read
// costs little per byte, small enough that the validator's passes over a
// piece find it in the CPU cache and that the indexer's memory stays small
// whatever the size of the files. A longer line grows the buffer for as
// long as that file is read. (A variable so that tests can cut files into
// pieces of a few bytes.)
var readChunk = 256 << 10

// stream reads [start, size) of f in pieces into a pooled buffer and folds
// the complete lines of each, keeping no reference to the bytes.
func (ix *Index) stream(f readFile, u *update, start int64) error {
	bp := ix.buffer()
	defer ix.bufs.Put(bp)
	buf := *bp
	var long int64 // budget taken for a long line's buffer
	defer func() { u.budget.release(long) }()
	pos, n := start, 0 // buf[:n] holds the file from offset pos
	for first := true; ; first = false {
		end := min(u.fid.size, pos+int64(cap(buf)))
		got, err := ix.readInto(f, buf[n:cap(buf)], pos+int64(n), end)
		if err != nil {
			return err
		}
		n += len(got)
		if first {
			u.begin(pos)
		}
		data := buf[:n]
		eof := pos+int64(n) >= u.fid.size
		used := u.fold(data, pos)
		if eof {
			u.end(data[used:])
			break
		}
		if used == 0 && n == cap(buf) { // a line longer than the buffer
			to, err := ix.lineEnd(f, pos+int64(n), u.fid.size)
			if err != nil {
				return err
			}
			u.budget.release(long)
			long = u.budget.acquire(to - pos)
			u.noteHuge(to - pos)
			buf = slices.Grow(buf[:n], int(to-pos)-n) // once, of the line's size
		}
		n = copy(buf[:cap(buf)], data[used:])
		pos += int64(used)
	}
	if cap(buf) <= readChunk {
		*bp = buf[:0]
	}
	return nil
}

// buffer returns a pooled read buffer of readChunk bytes.
func (ix *Index) buffer() *[]byte {
	n := readChunk
	if b, ok := ix.bufs.Get().(*[]byte); ok && cap(*b) >= n {
		return b
	}
	b := make([]byte, 0, n)
	return &b
}
