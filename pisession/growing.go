package pisession

import "slices"

// Growing parses a file that only grows at its end (pi appends), so that
// each look at it after an append parses the new bytes only. It keeps the
// records of the complete lines (unfinished: no migration, no structure
// checks) and the final line without newline; Session finishes a copy of
// them. A Growing is used by one goroutine at a time; the Sessions it
// returns are independent of it and of each other, and may be read
// concurrently with later Adds.
type Growing struct {
	p    Parser
	rest []byte // the final line without newline, not consumed yet
	size int64
}

// Add parses data, the bytes that follow the ones added before. The
// records keep data: the caller must not change it afterwards.
func (g *Growing) Add(data []byte) {
	buf := data
	if len(g.rest) > 0 {
		buf = make([]byte, 0, len(g.rest)+len(data))
		buf = append(append(buf, g.rest...), data...)
	}
	n := g.p.parse(buf, false)
	g.rest = buf[n:]
	g.size += int64(len(data))
}

// Size returns the number of bytes added.
func (g *Growing) Size() int64 { return g.size }

// Session returns the file as Parse would parse the bytes added so far.
// ok is false for a file pi migrates (an older version): migrating
// changes the records in place, which this parse shares, so the caller
// must Parse the whole file instead.
func (g *Growing) Session() (s *Session, ok bool) {
	base := g.p.S()
	if base.needsMigration() {
		return nil, false
	}
	s = base.fork()
	if len(g.rest) > 0 {
		last := Parser{s: s, off: g.p.off, line: g.p.line}
		last.parse(g.rest, true)
	}
	s.Size = g.size
	s.finish()
	return s, true
}

// fork returns a copy of s that can be finished, and have records added,
// without changing s: its slices have no room to grow into s's, its index
// of ids is its own, and its listing metadata is folded again on use.
// The records themselves are shared (they are not changed once parsed).
func (s *Session) fork() *Session {
	c := *s
	c.Entries = slices.Clip(s.Entries)
	c.records = slices.Clip(s.records)
	c.listed = slices.Clip(s.listed)
	c.Problems = slices.Clip(s.Problems)
	c.byID = s.ids().clone()
	c.info, c.infoDone = InfoBuilder{}, 0
	return &c
}
