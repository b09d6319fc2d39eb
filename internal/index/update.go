package index

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"

	"piweb/internal/session"
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
	entries []*session.Entry
	msgs    []*msg
	// ids are the new entries' ids when entries are not kept (listing only).
	ids []string
	// text is set when entries are to be written to the text index now;
	// textFrom is the offset the entries start at.
	text     bool
	textFrom int64
}

var bom = []byte("\xef\xbb\xbf")

const tailCheck = 64 // bytes before the parsed offset checked on growth

// prepare reads what changed in a file since row old (nil when new) and
// parses it. With text, the new entries' text is extracted for the text
// index when it is current for the file.
func (ix *Index) prepare(path string, listAll bool, old *fileRow, text bool) *update {
	u := &update{path: path, listAll: listAll, old: old}
	f, err := ix.open(path)
	if err != nil {
		u.err = err
		return u
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		u.err = err
		return u
	}
	u.fid = idOf(fi)
	if !u.fid.regular {
		u.err = errors.New("not a regular file")
		return u
	}
	u.full = ix.needsFull(f, old, u.fid)
	start := int64(0)
	if !u.full {
		start = old.offset
	}
	u.text = text && (u.full || old.textOffset == old.offset)
	var data []byte
	if u.text {
		data, err = ix.readAt(f, start, u.fid.size)
	} else {
		// The listing keeps no reference to the bytes: read into a
		// reused buffer, sparing the allocation and zeroing of the
		// whole corpus on a cold start.
		buf := ix.getBuf(u.fid.size - start)
		defer ix.bufs.Put(buf)
		data, err = ix.readInto(f, *buf, start, u.fid.size)
	}
	if err != nil {
		u.err = err
		return u
	}
	u.parse(data, start)
	if err := u.hashTail(ix, f, data, start); err != nil {
		u.err = err
	}
	return u
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

// parse folds data, which starts at file offset start, into the update.
func (u *update) parse(data []byte, start int64) {
	line := int64(0)
	if u.full {
		if bytes.HasPrefix(data, bom) {
			data, start = data[len(bom):], start+int64(len(bom))
		}
		u.findHead(data, start)
	} else {
		u.h, u.body, u.meta, u.problems, line = u.old.head, u.old.body, u.old.meta, u.old.problems, u.old.line
	}
	u.textFrom = start
	var c chunk
	var recs []rec
	if u.text {
		c = parseChunk(data, start, int(line), false)
		u.entries = c.entries
		u.msgs = make([]*msg, len(c.entries))
		recs = make([]rec, len(c.entries))
		for i, e := range c.entries {
			recs[i] = recOf(e)
			if e.Type == "message" {
				m := decodeMessage(e.Field("message"), true)
				u.msgs[i] = &m
			}
		}
	} else {
		c, recs, u.msgs = listChunk(data, start, int(line), false)
		u.ids = make([]string, len(recs))
		for i, r := range recs {
			u.ids[i] = r.ID
		}
	}
	u.offset, u.line = start+int64(c.consumed), line+int64(c.lines)
	u.body = u.body.then(c.body)
	u.listBody = u.body
	if tail := data[c.consumed:]; len(bytes.TrimSpace(tail)) > 0 {
		t, _, _ := listChunk(tail, u.offset, int(u.line), true)
		u.listBody = u.body.then(t.body)
	}
	for i, r := range recs {
		u.meta.add(r, u.msgs[i])
	}
	u.meta.finish()
	u.addProblems(c.problems)
}

// findHead finds the header of a fully read file. A first record still
// without its newline counts for the listing (pi reads it) but is not
// remembered, so that the next change rereads the file.
func (u *update) findHead(data []byte, start int64) {
	h, ok := findHead(data)
	if !ok {
		if t := bytes.TrimSpace(data); len(t) > 0 {
			h, _ = findHead(append(bytes.Clone(data), '\n'))
			h.len = 0
		}
	}
	h.off += start
	u.h = h
	if !h.ok && (ok || h.len == 0 && len(bytes.TrimSpace(data)) > 0) {
		u.addProblems([]session.Problem{{Line: 1, Kind: session.MissingHeader, Message: "first record is not a session header; pi's listing leaves the file out"}})
	}
}

const maxProblems = 100

func (u *update) addProblems(ps []session.Problem) {
	for _, p := range ps {
		if len(u.problems) >= maxProblems {
			return
		}
		if !p.IsNote() {
			u.problems = append(u.problems, problemJSON{p.Line, string(p.Kind), p.Message})
		}
	}
}

// hashTail remembers the bytes just before the new offset.
func (u *update) hashTail(ix *Index, f readFile, data []byte, start int64) error {
	from := max(0, u.offset-tailCheck)
	if from >= start && u.offset-start <= int64(len(data)) {
		u.tailHash = hashOf(data[from-start : u.offset-start])
		return nil
	}
	b, err := ix.readAt(f, from, u.offset)
	if err != nil {
		return fmt.Errorf("read tail: %w", err)
	}
	u.tailHash = hashOf(b)
	return nil
}
