package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"math"
	"strconv"
	"time"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// A chunk of a file is parsed behind a synthetic header line. pi's listing
// semantics live in pisession.InfoBuilder, whose state cannot be saved; so the
// index runs it over each new chunk alone and keeps the part of the result
// that adds up across chunks (body), while the header's part is taken once
// from the header line. Behind the synthetic header, the real header (in a
// full parse) is a repeated header, which pi's listing ignores; the
// synthetic header has no timestamp, so with mtime 0 the chunk's Modified is
// its pure last activity, 0 when it has none.
var synthHeader = []byte(`{"type":"session","id":""}` + "\n")

// body is the part of pi's SessionInfo that is a fold over the entries, in a
// form that two consecutive chunks can be merged in.
//
// The first message is not in the row's body (first.go): HasFirst says
// there is one, and a body loaded from a row has its head, with
// FirstStored set (the whole one is kept, nothing to write).
type body struct {
	Dropped      bool    `json:"dropped,omitempty"`
	MessageCount int     `json:"messageCount,omitempty"`
	FirstMessage string  `json:"-"`
	HasFirst     bool    `json:"first,omitempty"`
	NameSet      bool    `json:"nameSet,omitempty"`
	Name         string  `json:"name,omitempty"`
	HasName      bool    `json:"hasName,omitempty"`
	Activity     float64 `json:"activity,omitempty"`
	FirstStored  bool    `json:"-"`
	FirstSize    int64   `json:"-"` // the whole first message's size, when stored
}

// then returns a followed by b.
func (a body) then(b body) body {
	a.Dropped = a.Dropped || b.Dropped
	a.MessageCount += b.MessageCount
	if a.FirstMessage == "" {
		a.FirstMessage, a.FirstStored, a.FirstSize = b.FirstMessage, b.FirstStored, b.FirstSize
	}
	if b.NameSet {
		a.NameSet, a.Name, a.HasName = true, b.Name, b.HasName
	}
	a.Activity = math.Max(a.Activity, b.Activity)
	return a
}

// row is b as the files row keeps it: HasFirst for the first message.
func (b body) row() body {
	b.HasFirst = b.FirstMessage != ""
	return b
}

// chunk is the result of parsing a range of a file.
type chunk struct {
	entries  []*pisession.Entry // offsets and lines are file positions
	problems []pisession.Problem
	consumed int // bytes of complete lines
	lines    int // lines consumed
	body     body
}

// parseChunk parses data, which starts at file offset off and line line+1.
// Unless atEOF, a final line without newline is left unconsumed.
func parseChunk(data []byte, off int64, line int, atEOF bool) chunk {
	c, p := feedChunk(data, off, line, atEOF)
	c.body = parsedBody(c.body, p)
	return c
}

// feedChunk is parseChunk without the listing's fold (body.NameSet
// aside), which the text pass does not need.
func feedChunk(data []byte, off int64, line int, atEOF bool) (chunk, *pisession.Parser) {
	var p pisession.Parser
	p.Feed(synthHeader, false)
	shift := off - int64(len(synthHeader))
	n, added := p.Feed(data, atEOF)
	c := chunk{entries: added, consumed: n}
	for _, e := range added {
		e.Offset += shift
		e.Line += line - 1
		if e.Type == "session_info" {
			c.body.NameSet = true
		}
	}
	for _, pr := range p.S().Problems {
		if pr.Kind == pisession.DuplicateHeader {
			// The real header behind the synthetic one, or pi's repeated
			// one; a header equal to the synthetic one byte for byte is
			// told "header repeated" instead (a fuzz find).
			continue
		}
		pr.Line += line - 1
		c.problems = append(c.problems, pr)
	}
	c.lines = bytes.Count(data[:n], []byte{'\n'})
	if n < len(data) && atEOF {
		c.lines++
	}
	return c, &p
}

// head is what the index keeps of a file's first record.
type head struct {
	off, len int64
	hash     []byte
	ok       bool // pi's listing takes the file (first record is a header)
	info     pisession.Info
	idStr    string
	created  bool // the header timestamp is a string (pi's Modified fallback)
}

// findHead finds the first record of data as pi 1.6's listing reads it:
// the first line (readline also ends lines at a lone CR) that is JSON and
// not a falsy value. found is false while there is none.
func findHead(data []byte) (h head, found bool) {
	off := 0
	for off < len(data) {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return h, false // wait for the line to complete
		}
		line := bytes.TrimSuffix(data[off:off+nl], []byte("\r"))
		start := off
		for part := range bytes.SplitSeq(line, []byte("\r")) {
			if t := bytes.TrimSpace(part); len(t) > 0 && json.Valid(t) && !falsyJSON(t) {
				return headOf(part, int64(start)), true
			}
			start += len(part) + 1
		}
		off += nl + 1
	}
	return h, false
}

// falsyJSON reports whether valid JSON t is a value JavaScript treats as
// false (null, false, 0, ""), which pi 1.6 skips.
func falsyJSON(t []byte) bool {
	switch t[0] {
	case 'n', 'f':
		return true
	case '"':
		return len(t) == 2
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, err := strconv.ParseFloat(string(t), 64)
		return err == nil && f == 0
	}
	return false
}

func headOf(line []byte, off int64) head {
	sum := sha256.Sum256(line)
	h := head{off: off, len: int64(len(line)), hash: sum[:]}
	var p pisession.Parser
	p.Feed(append(append([]byte(nil), line...), '\n'), true)
	h.info, h.ok = p.S().Info("", time.UnixMilli(0))
	if h.ok {
		h.idStr = str(h.info.ID)
		ts := jsjson.Field(line, "timestamp")
		h.created = len(ts) > 0 && ts[0] == '"'
	}
	return h
}

// listing returns pi's SessionInfo for a file from its header and body.
func listing(path string, h head, b body, mtime time.Time) (pisession.Info, bool) {
	if !h.ok || b.Dropped {
		return pisession.Info{}, false
	}
	in := h.info
	in.Path = path
	in.MessageCount = b.MessageCount
	in.FirstMessage = b.FirstMessage
	if in.FirstMessage == "" {
		in.FirstMessage = pisession.NoMessages
	}
	in.Name, in.HasName = b.Name, b.HasName
	in.Modified = modified(b.Activity, in.Created, h.created, mtime)
	return in, true
}

// modified applies pi's rule: last activity, else a string header
// timestamp, else the file's mtime.
func modified(activity, created float64, createdStr bool, mtime time.Time) float64 {
	switch {
	case activity > 0:
		return pisession.TimeClip(activity) // pi's new Date(lastActivityTime)
	case createdStr && !math.IsNaN(created):
		return created
	}
	return float64(mtime.UnixMilli())
}
