package pisession

import (
	"bytes"
	"fmt"
	"io"
)

// Branch extraction and forking, with pi 1.6's semantics. Each returns the
// content of a new file; the caller decides where it goes (NewFile writes it
// beside the source, as pi does).

// Extract returns a new session holding the path from the root to the entry
// leafID, like pi's createBranchedSession: label entries on the path are
// dropped and the resolved labels of path entries re-created after it, with
// their original timestamps. The header points back to sourcePath. Entries
// keep their ids and bytes (migrated first for old files).
//
// As pi 1.6 does, every kept entry is re-chained to the kept entry before
// it (the first to null), and a compaction whose firstKeptEntryId names a
// dropped label keeps from the next kept entry after that label (its own
// id, retain none, when that is the compaction). pi 0.73.1 left the child
// of a dropped label pointing at the missing label and lost the context
// above it.
func (s *Session) Extract(leafID, sourcePath string) ([]byte, error) {
	leaf := s.ByID(leafID)
	if leaf == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, leafID)
	}
	path, inPath := withoutLabels(s.PathTo(leaf))
	out := s.newHeader(s.cwdRaw(), sourcePath)
	for _, e := range path {
		out = appendLine2(out, e.Raw)
	}
	parent := []byte("null")
	if last := path[len(path)-1]; last.Field("id") != nil && truthyKey(last.idK()) {
		parent = last.Field("id")
	}
	taken := func(id string) bool { return inPath["s"+id] }
	for _, l := range s.Labels() {
		if !inPath[l.TargetKey] {
			continue
		}
		id := NewEntryID(taken)
		inPath["s"+id] = true
		line := encodeMembers([]rawMember{{"type", []byte(`"label"`)}, {"id", appendJSString(nil, id)},
			{"parentId", parent}, {"timestamp", l.Timestamp}, {"targetId", s.byKey(l.TargetKey).Field("id")},
			{"label", l.Value}})
		out = appendLine2(out, line)
		parent = appendJSString(nil, id)
	}
	return out, nil
}

// withoutLabels drops the label entries of a path and re-chains the rest
// as pi 1.6's createBranchedSession does (see Extract).
func withoutLabels(full []*Entry) ([]*Entry, map[string]bool) {
	var path []*Entry
	inPath := map[string]bool{}
	parent := []byte("null")
	var pending []string               // dropped labels waiting for the next kept entry
	replacement := map[string][]byte{} // dropped label's id key -> next kept entry's id
	for _, e := range full {
		if e.Type == "label" {
			pending = append(pending, e.idK())
			continue
		}
		for _, l := range pending {
			replacement[l] = e.Field("id")
		}
		pending = pending[:0]
		set := []rawMember{member3("parentId", parent)}
		if e.Type == "compaction" {
			keep := valueKey(e.Field("firstKeptEntryId"))
			if r, ok := replacement[keep]; ok && keep != e.idK() {
				set = append(set, member3("firstKeptEntryId", r))
			}
		}
		if needsSet(e, set) {
			c := *e
			c.setMembers(set...)
			e = &c
		}
		path = append(path, e)
		inPath[e.idK()] = true
		parent = e.Field("id")
	}
	return path, inPath
}

// needsSet reports whether assigning the members would change the entry.
func needsSet(e *Entry, set []rawMember) bool {
	for _, m := range set {
		if v := e.Field(m.key); v == nil || valueKey(v) != valueKey(m.value) {
			return true
		}
	}
	return false
}

// ForkBefore is pi's /fork of a user message: the new session holds the
// path up to the message's parent, so the message can be sent again
// differently. A root user message gives a session with only a header.
func (s *Session) ForkBefore(entryID, sourcePath string) ([]byte, error) {
	e := s.ByID(entryID)
	if e == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, entryID)
	}
	if e.Role() != "user" {
		return nil, fmt.Errorf("entry %s is not a user message", entryID)
	}
	if p := s.parentOf(e); p != nil {
		return s.Extract(p.ID, sourcePath)
	}
	return s.newHeader(s.cwdRaw(), sourcePath), nil
}

// Clone is pi's /clone: the current branch (pi's leaf after load) in a new
// session.
func (s *Session) Clone(sourcePath string) ([]byte, error) {
	leaf := s.Leaf()
	if leaf == nil {
		return s.newHeader(s.cwdRaw(), sourcePath), nil
	}
	return s.Extract(leaf.ID, sourcePath)
}

// ForkTo is pi's forkFrom: every entry of every branch, into a session for
// another cwd. Unlike pi it writes migrated entries, so forking an old file
// does not give a version 3 header over version 1 entries.
func (s *Session) ForkTo(cwd, sourcePath string) []byte {
	out := s.newHeader(appendJSString(nil, cwd), sourcePath)
	for _, e := range s.Entries {
		out = appendLine2(out, e.Raw)
	}
	return out
}

// ExportLinear is pi's /export to JSONL: the path to leafID (pi's leaf when
// empty) re-chained as one line, under a header with the same session id
// and no parentSession.
func (s *Session) ExportLinear(leafID string) ([]byte, error) {
	var b bytes.Buffer
	err := s.WriteLinear(&b, leafID)
	return b.Bytes(), err
}

// WriteLinear is ExportLinear written to w a line at a time, so that a
// branch of a huge message is not copied whole once more (issue 21). The
// only error before the first write is ErrNotFound; later ones are w's.
func (s *Session) WriteLinear(w io.Writer, leafID string) error {
	leaf := s.Leaf()
	if leafID != "" {
		if leaf = s.ByID(leafID); leaf == nil {
			return fmt.Errorf("%w: %s", ErrNotFound, leafID)
		}
	}
	id, _ := s.Header.String("id")
	if _, err := w.Write(appendLine2(nil, headerLine(id, nowISO(), s.cwdRaw(), nil))); err != nil {
		return err
	}
	// Each line is written as it is rebuilt: an entry of tens of MB is not
	// copied (issue 21: the branch export of a 16 MB line held 2x).
	ew := &errWriter{w: w}
	parent := []byte("null")
	for _, e := range s.PathTo(leaf) {
		objectPieces(e.Raw, e.top(), []rawMember{member3("parentId", parent)}, "", ew.write)
		ew.write(newline)
		parent = e.Field("id")
	}
	return ew.err
}

// errWriter writes to w until a write fails, then keeps the error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) write(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}

// newHeader starts a new file's content with a fresh header.
func (s *Session) newHeader(cwd []byte, parentSession string) []byte {
	var ps []byte
	if parentSession != "" {
		ps = appendJSString(nil, parentSession)
	}
	return appendLine2(nil, headerLine(NewSessionID(), nowISO(), cwd, ps))
}

// cwdRaw is the header's cwd as raw JSON.
func (s *Session) cwdRaw() []byte {
	if s.Header == nil {
		return nil
	}
	return s.Header.Field("cwd")
}

var newline = []byte{'\n'}

func appendLine2(b, line []byte) []byte { return append(append(b, line...), '\n') }

// InCwd is the content of a new session (Extract, ForkBefore, Clone) with
// its header's cwd set to cwd: the session lives in that project, as pi's
// fork into another folder does (forkFrom) when a session's own folder is
// gone. Only the header changes.
func InCwd(content []byte, cwd string) []byte {
	first, rest, _ := bytes.Cut(content, []byte("\n"))
	h := newEntry(first, 1, 0, nil)
	if h == nil || h.Type != "session" {
		return content
	}
	h.setMembers(member3("cwd", appendJSString(nil, cwd)))
	return append(appendLine2(nil, h.Raw), rest...)
}
