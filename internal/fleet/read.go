package fleet

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"piweb/pisession"
)

// stored is what the database has of one session file: how far it was
// pushed and what the bytes there were, so that a push can tell an append
// (read on from pushedOffset) from a rewrite (replace everything).
type stored struct {
	offset  int64
	lines   int
	head    []byte // headHash: the file's device, inode and header line
	tail    []byte // SHA-256 of the tailLen bytes before offset
	leaf    string
	deleted bool
	share   string
	meta    metaRow
}

// tailLen is how many bytes before the pushed offset must be unchanged for
// the file to count as appended to (as the local index checks).
const tailLen = 64

// chunk is what one push sends of one file: complete lines from `from`.
type chunk struct {
	path     string
	replace  bool // the stored rows go first (rewritten, or never pushed)
	from     int64
	fromLine int
	data     []byte // complete lines, each ending in '\n'
	end      int64  // from + len(data)
	lines    int    // lines in data
	more     bool   // the file has complete lines past end
	head     []byte
	tail     []byte
}

// readChunk opens path and reads what the database lacks: from the pushed
// offset when the header and the bytes before it are unchanged, else from
// the start. At most budget bytes are read, cut at a line end (a longer
// first line is read whole); more says what is left.
func readChunk(path string, have *stored, budget int64) (chunk, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return chunk{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return chunk{}, err
	}
	if !st.Mode().IsRegular() {
		return chunk{}, fmt.Errorf("%s: not a regular file", path)
	}
	size := st.Size()
	header, err := firstLine(f, size)
	if err != nil {
		return chunk{}, err
	}
	c := chunk{path: path, head: headHash(st, header)}
	if have != nil && have.offset > 0 && have.offset <= size && bytes.Equal(have.head, c.head) {
		tail, err := tailBefore(f, have.offset)
		if err != nil {
			return chunk{}, err
		}
		if bytes.Equal(tail, have.tail) {
			c.from, c.fromLine = have.offset, have.lines
		}
	}
	c.replace = c.from == 0 && have != nil
	if err := c.readLines(f, size, budget); err != nil {
		return chunk{}, err
	}
	c.tail, err = tailBefore(f, c.end)
	return c, err
}

// readLines reads [from, size) cut after its last complete line, or after
// the last line end within budget.
func (c *chunk) readLines(f io.ReaderAt, size, budget int64) error {
	n := size - c.from
	if n > budget {
		n = budget
		c.more = true
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, c.from); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	last := bytes.LastIndexByte(buf, '\n')
	if last < 0 && c.more {
		// One line longer than the budget: read it whole.
		line, err := lineAt(f, c.from, size)
		if err != nil {
			return err
		}
		buf, last = line, bytes.LastIndexByte(line, '\n') // -1: not complete yet
	}
	c.data = buf[:last+1]
	c.end = c.from + int64(len(c.data))
	c.lines = bytes.Count(c.data, []byte{'\n'})
	c.more = c.more && c.end < size
	return nil
}

// firstLine is the header line without its newline (the whole file when
// no line is complete yet).
func firstLine(f io.ReaderAt, size int64) ([]byte, error) {
	line, err := lineAt(f, 0, size)
	return bytes.TrimSuffix(line, []byte{'\n'}), err
}

// lineAt reads the line starting at off, with its newline when it has one.
func lineAt(f io.ReaderAt, off, size int64) ([]byte, error) {
	var out []byte
	for step := int64(64 << 10); off < size; step *= 2 {
		buf := make([]byte, min(step, size-off))
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			return append(out, buf[:i+1]...), nil
		}
		out = append(out, buf...)
		off += int64(len(buf))
	}
	return out, nil
}

// tailBefore hashes the tailLen bytes before off.
func tailBefore(f io.ReaderAt, off int64) ([]byte, error) {
	start := max(0, off-tailLen)
	buf := make([]byte, off-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return hash(buf), nil
}

// headHash is the file's identity: device, inode and header line. A file
// rewritten by rename (as pi and piweb rewrite) is a new inode, even when
// its size, header and last bytes are the same as before.
func headHash(st os.FileInfo, header []byte) []byte {
	h := sha256.New()
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fmt.Fprintf(h, "%d:%d\n", sys.Dev, sys.Ino)
	}
	h.Write(header)
	return h.Sum(nil)
}

func hash(b []byte) []byte {
	h := sha256.Sum256(b)
	return h[:]
}

// entryRow is one entry of the fleet.entries table.
type entryRow struct {
	line                  int
	id, parent, typ, role string
	hasParent             bool
	ts                    int64
	onBranch              bool
	text, tools           string
	searchable            bool
}

// usageRow is one charge of the fleet.usage table.
type usageRow struct {
	line    int
	entryID string
	ts      int64
	charge  pisession.Charge
}

// parsed is a chunk's entries and charges, and the leaf it leaves.
type parsed struct {
	entries []entryRow
	usage   []usageRow
	leaf    string
	// exitParent is the parent of the oldest new entry on the new leaf's
	// path that is not itself new ("" when the path ends at a root): the
	// old entry the new branch grows from.
	exitParent string
	rootPath   bool // the new leaf's path reaches a root among the new entries
}

// parseChunk parses a chunk's lines as pi does (pisession.Parser), with
// searchable text and charges by their one definitions.
func parseChunk(c chunk) parsed {
	var p pisession.Parser
	p.Feed(c.data, false)
	es := p.S().Entries
	var out parsed
	byID := make(map[string]int, len(es))
	for _, e := range es {
		f := pisession.FactsOf(e)
		row := entryRow{line: c.fromLine + e.Line, id: e.ID, parent: e.ParentID, hasParent: e.HasParent(),
			typ: e.Type, ts: pisession.StampMs(e.Timestamp), role: f.Role}
		s := f.Searchable
		row.text, row.tools, row.searchable = clean(strings.Join(s.Text, "\n")), clean(strings.Join(s.Tools, "\n")), !s.Empty()
		if f.Charged {
			out.usage = append(out.usage, usageRow{line: row.line, entryID: e.ID, ts: row.ts, charge: f.Charge})
		}
		if e.ID != "" {
			byID[e.ID] = len(out.entries)
		}
		out.entries = append(out.entries, row)
	}
	out.markBranch(byID)
	return out
}

// markBranch flags the new entries on the path from the last one (pi's
// leaf) up through the new entries, and notes where that path leaves them.
func (p *parsed) markBranch(byID map[string]int) {
	if len(p.entries) == 0 {
		return
	}
	i := len(p.entries) - 1
	p.leaf = p.entries[i].id
	seen := map[int]bool{}
	for !seen[i] {
		seen[i] = true
		e := &p.entries[i]
		e.onBranch = true
		if !e.hasParent {
			p.rootPath = true
			return
		}
		j, ok := byID[e.parent]
		if !ok {
			p.exitParent = e.parent
			return
		}
		i = j
	}
	p.rootPath = true // a cycle: pi stops there too
}

// clean makes s storable as PostgreSQL text: valid UTF-8 without NUL.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}
