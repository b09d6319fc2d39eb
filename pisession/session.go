package pisession

import (
	"bytes"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
	"unsafe"
)

// CurrentVersion is the session format version pi 0.73 writes.
const CurrentVersion = 3

// Session is a parsed session file. It is a plain value: reading never writes
// to the file, and older versions are migrated in memory only.
type Session struct {
	// Header is the first record when it is a valid header (type "session"
	// with a string id); nil otherwise, in which case pi treats the whole
	// file as invalid.
	Header *Entry
	// Entries holds every other record in file order, including non-object
	// values; later headers (pi's duplicate-header bug) are left out, as pi
	// does.
	Entries []*Entry
	// Problems lists what is wrong with the file, in line order.
	Problems []Problem
	// Version is the header's version, 1 when absent.
	Version int
	// Migrated reports that the records were upgraded from an older version
	// in memory; a writer must rewrite the file before appending, as pi does
	// when it opens such a file.
	Migrated bool
	// Size is the number of bytes parsed.
	Size int64

	// linked is set by the structure check when every id is unique and
	// every parent is on an earlier line (wellLinked), until an entry is
	// appended: paths may then step to the entry before without a lookup.
	linked bool

	info     InfoBuilder // folded lazily, see Info
	infoDone int         // listed records folded into info
	// byID indexes Entries[:indexed] by id key; ids files the rest first.
	// It is filled after the lines are parsed, in one tight loop whose
	// cache misses overlap (filled a line at a time, they cost a tenth of
	// the parse of a file of short entries).
	byID    idTable
	indexed int
	records []*Entry // every record in file order, headers included
	// bomHeader is the first line without its byte order mark, for repair.
	bomHeader *Entry
	// listed are the records pi's listing reads when they differ from
	// records (readline also splits lines at a lone CR, see listing);
	// nil, and not kept, until a line makes them differ.
	listed    []*Entry
	ownListed bool
}

// listing returns the records pi's listing reads.
func (s *Session) listing() []*Entry {
	if s.ownListed {
		return s.listed
	}
	return s.records
}

// ReadFile reads and parses a whole session file.
func ReadFile(path string) (*Session, error) {
	data, err := readAll(path)
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	return Parse(data), nil
}

// Parse parses the complete content of a session file, migrating older
// versions in memory.
func Parse(data []byte) *Session {
	s := parseRecords(data)
	s.finish()
	return s
}

// parseRecords parses the lines of a complete file without the whole-file
// steps; listing needs no more. As in pi 1.6 the file is not trimmed: a
// byte order mark stays on the first line, which then is no JSON, so pi
// refuses the file.
func parseRecords(data []byte) *Session {
	var p Parser
	p.presize(data)
	p.parse(data, true)
	s := p.S()
	s.Size = int64(len(data))
	return s
}

var bom = []byte("\xef\xbb\xbf")

// Parser parses a session file incrementally, a chunk of complete lines at a
// time, so that a growing file is read only once.
type Parser struct {
	s       *Session
	off     int64
	line    int
	scratch scratchSpace
	byLine  bool // tests: every line through addLine, none through addCompact
}

// S returns the session parsed so far.
func (p *Parser) S() *Session {
	if p.s == nil {
		p.s = &Session{Version: 1}
	}
	return p.s
}

// presize sizes the index of ids and the record lists for a whole file
// from the line length of its start (at most 256 KB of it), so that a file
// of many short lines does not grow them a dozen times. A start without
// newline (a huge first line) sizes nothing, and a start of short lines
// before huge ones sizes at most a slot for every 256 bytes (a few percent
// of the file, which the parse holds anyway).
func (p *Parser) presize(data []byte) {
	const sample = 256 << 10
	head := data[:min(len(data), sample)]
	lines := bytes.Count(head, []byte("\n"))
	if lines < 16 {
		return
	}
	n := int(min(int64(lines)*int64(len(data))/int64(len(head)), int64(len(data))/256, 1<<20))
	p.s = &Session{Version: 1, Entries: make([]*Entry, 0, n), records: make([]*Entry, 0, n)}
	p.s.byID.grow(nil, n)
}

// Offset returns the file offset up to which lines have been consumed.
func (p *Parser) Offset() int64 { return p.off }

// Feed parses the complete lines at the start of data, which must begin at
// Offset() in the file, and returns the number of bytes consumed and the
// entries added. A final line without newline waits for more data unless
// atEOF is set.
func (p *Parser) Feed(data []byte, atEOF bool) (n int, added []*Entry) {
	before := len(p.S().Entries)
	n = p.parse(data, atEOF)
	return n, p.s.Entries[before:]
}

func (p *Parser) parse(data []byte, atEOF bool) int {
	s := p.S()
	p.scratch.slab = true
	consumed := 0
	for consumed < len(data) {
		rest := data[consumed:]
		if adv := p.compact(rest, atEOF); adv > 0 {
			consumed += adv
			continue
		}
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 && !atEOF {
			break
		}
		line := rest
		if nl >= 0 {
			line = rest[:nl]
		}
		p.line++
		s.addLine(line, p.line, p.off, nl < 0, &p.scratch)
		adv := len(line)
		if nl >= 0 {
			adv++
		}
		consumed += adv
		p.off += int64(adv)
	}
	s.ids() // complete before the session is shared: readers never write it
	return consumed
}

// addLine parses one line and files it as header, entry or problem, with
// pi 1.6's loader rules: blank lines, lines that are not JSON and falsy
// values (null, false, 0, "") are skipped.
func (s *Session) addLine(line []byte, n int, off int64, last bool, scratch *scratchSpace) {
	if isJSBlank(line) {
		return
	}
	if n == 1 && bytes.HasPrefix(line, bom) {
		s.problem(n, BOM, "file starts with a byte order mark: pi 1.6 refuses the file (check --repair removes it)")
		s.bomHeader = newEntry(line[len(bom):], n, off+int64(len(bom)), nil)
	}
	if bytes.HasSuffix(line, []byte("\r")) {
		s.note(n, CRLF, "line ends with CR LF")
	}
	e := newEntry(line, n, off, scratch)
	switch {
	case e == nil && last:
		s.problem(n, Truncated, "last line is not complete JSON (a write was cut short?)")
	case e == nil:
		s.problem(n, Malformed, "line is not valid JSON")
	case e.falsy():
		s.problem(n, NullLine, "line is JSON "+clip(e.Raw)+" (pi skips it)")
	default:
		s.addRecord(e)
	}
	s.addListed(line, e, n, off)
}

// compact parses the line at the start of rest with addCompact, and
// returns the bytes it consumed, 0 when addLine must parse it.
func (p *Parser) compact(rest []byte, atEOF bool) int {
	if p.byLine {
		return 0
	}
	adv := p.s.addCompact(rest, atEOF, p.line+1, p.off, &p.scratch)
	if adv > 0 {
		p.line++
		p.off += int64(adv)
	}
	return adv
}

// addCompact is addLine for a line as JSON.stringify writes it, found
// and parsed in one scan (compactEntry): such a line is an object and
// holds no CR but maybe the one before its LF. It returns the bytes the
// line takes with its end, 0 for any other line, which addLine parses.
func (s *Session) addCompact(rest []byte, atEOF bool, n int, off int64, scratch *scratchSpace) int {
	e, adv := compactEntry(rest, atEOF, n, off, scratch)
	if e == nil {
		return 0
	}
	if e.Raw[len(e.Raw)-1] == '\r' {
		s.note(n, CRLF, "line ends with CR LF")
	}
	s.addRecord(e)
	if s.ownListed {
		s.listed = append(s.listed, e)
	}
	return adv
}

// addListed adds what pi's listing reads of a line: Node's readline
// (crlfDelay: Infinity, as pi 1.6's buildSessionInfo uses it) also ends
// lines at a lone CR, so such a line is read as several. On Node 22, pi's
// minimum, U+2028 and U+2029 do not end lines (Node 24 splits there too).
func (s *Session) addListed(line []byte, e *Entry, n int, off int64) {
	body := bytes.TrimSuffix(line, []byte("\r"))
	if bytes.IndexByte(body, '\r') < 0 {
		if e != nil && !e.falsy() && s.ownListed {
			s.listed = append(s.listed, e)
		}
		return
	}
	if !s.ownListed { // the records so far, without this line's
		n := len(s.records)
		if e != nil && !e.falsy() {
			n--
		}
		s.listed, s.ownListed = slices.Clone(s.records[:n]), true
	}
	var scratch scratchSpace
	for part := range bytes.SplitSeq(body, []byte("\r")) {
		if isJSBlank(part) {
			continue
		}
		if pe := newEntry(part, n, off, &scratch); pe != nil && !pe.falsy() {
			s.listed = append(s.listed, pe)
		}
		off += int64(len(part)) + 1
	}
}

// addRecord files a parsed record.
func (s *Session) addRecord(e *Entry) {
	first := len(s.records) == 0
	s.records = append(s.records, e)
	if e.kind != kindObject {
		s.problem(e.Line, NonObject, "line is a JSON value but not an object")
	}
	if e.Type == "session" && e.kind == kindObject {
		s.addHeader(e, first)
		return
	}
	if first {
		s.problem(e.Line, MissingHeader, "first record is not a session header")
	}
	if n := len(s.Entries); n > 0 && s.Entries[n-1].idK() == e.parentK() {
		e.afterParent = e.HasParent()
	}
	s.Entries = append(s.Entries, e)
}

// ids returns the index of ids, after filing the entries not yet in it.
// A parse files them all before it returns, so on a parsed session ids
// only reads (a cached session is read by many requests at once); a
// session built otherwise (repair's probe) files them on first use.
func (s *Session) ids() *idTable {
	if s.indexed == len(s.Entries) {
		return &s.byID
	}
	if s.indexed > len(s.Entries) { // Entries was cut: file them again
		s.byID, s.indexed = idTable{}, 0
	}
	for i := s.indexed; i < len(s.Entries); i++ {
		s.byID.add(s.Entries, i)
	}
	s.indexed = len(s.Entries)
	return &s.byID
}

func (s *Session) addHeader(e *Entry, first bool) {
	if !first {
		if s.Header != nil && bytes.Equal(e.Raw, s.Header.Raw) {
			s.problem(e.Line, DuplicateHeader, "header repeated (pi's lazy-flush bug)")
		} else {
			s.problem(e.Line, DuplicateHeader, "another session header inside the file")
		}
		return
	}
	if _, ok := e.String("id"); !ok {
		s.problem(e.Line, MissingHeader, "session header has no string id")
		return
	}
	s.Header = e
	s.Version = headerVersion(e)
	if s.Version > CurrentVersion || s.Version < 1 {
		s.problem(e.Line, UnknownVersion, "unknown session version "+clip(e.Field("version")))
	}
}

// headerVersion returns the header's version as pi reads it: absent is 1.
func headerVersion(h *Entry) int {
	v := h.Field("version")
	if v == nil {
		return 1
	}
	var n int
	if _, err := fmt.Sscan(string(v), &n); err != nil {
		return 0
	}
	return n
}

// finish runs the whole-file steps after the last line: migration and the
// structural checks.
func (s *Session) finish() {
	if s.needsMigration() {
		s.migrate()
	}
	s.checkStructure()
}

// needsMigration reports whether pi upgrades the file's records when it
// opens it (a header of an older version).
func (s *Session) needsMigration() bool {
	return s.Header != nil && s.Version < CurrentVersion && s.Version >= 1
}

// Info returns the listing metadata of the file as pi's SessionInfo has it;
// ok is false when pi's listing would leave the file out. It reflects the
// file as read, before any in-memory migration, as pi's listing does.
// It is computed on first use and then kept current incrementally, so
// parsing for other purposes does not pay for it.
func (s *Session) Info(path string, mtime time.Time) (Info, bool) {
	listed := s.listing()
	for _, r := range listed[s.infoDone:] {
		s.info.Add(r)
	}
	s.infoDone = len(listed)
	return s.info.Info(path, mtime)
}

// ByID returns the entry with the given id, the last one in file order when
// ids repeat, as pi's index does.
func (s *Session) ByID(id string) *Entry { return s.byKey("s" + id) }

// byKey returns the entry for a value key.
func (s *Session) byKey(k string) *Entry { return s.ids().get(s.Entries, k) }

// Leaf returns the entry pi's leaf points at after loading the file: the
// last entry in file order, whatever its type. It is nil for an empty file.
func (s *Session) Leaf() *Entry {
	if len(s.Entries) == 0 {
		return nil
	}
	return s.Entries[len(s.Entries)-1]
}

// jsTrimBounds returns the part of data that JavaScript's String.trim keeps.
func jsTrimBounds(data []byte) (int, int) {
	start, end := 0, len(data)
	for start < end {
		r, n := utf8.DecodeRune(data[start:end])
		if !isJSSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRune(data[start:end])
		if !isJSSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		end -= n
	}
	return start, end
}

// isJSBlank reports whether line.trim() is empty in JavaScript.
func isJSBlank(line []byte) bool {
	s, e := jsTrimBounds(line)
	return s == e
}

// isJSSpace reports whether r is white space or a line terminator for
// JavaScript's String.prototype.trim.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// MemSize estimates the memory the parse holds: the file's bytes, which
// every entry's Raw shares, and each record's own structures (its Entry,
// member spans, strings and map slot). A file of short lines costs many
// times its size (a million "{}" lines: 3 MB of file, hundreds of MB
// parsed), so caches budget this, not the file size.
func (s *Session) MemSize() int64 {
	const perRecord = int64(unsafe.Sizeof(Entry{})) + 8 + 64 // the Entry, its pointer, a map slot
	const perMember = int64(unsafe.Sizeof(member{}))
	n := s.Size
	for _, e := range s.records {
		n += perRecord + perMember*int64(cap(e.members)) + int64(len(e.keys))
	}
	return n
}
