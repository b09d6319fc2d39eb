package pisession

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"piweb/internal/jsjson"
)

// The encoding of new lines and files as pi writes them: its key order,
// JSON.stringify's escaping, its ids and file names. Pure: Append and
// Create (write.go), and piweb's store, write what these make.

// nowISO returns the current time as JavaScript's toISOString writes it.
func nowISO() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// entryLine encodes a new entry with pi's key order: type, id, parentId,
// timestamp, then the members; custom and custom_message put their members
// before id. A nil parent leaves parentId out, as pi does when its leaf is
// undefined.
func entryLine(typ, id string, parent []byte, ts string, members ...rawMember) []byte {
	base := []rawMember{{"id", appendJSString(nil, id)}, {"parentId", parent}, {"timestamp", appendJSString(nil, ts)}}
	all := []rawMember{{"type", appendJSString(nil, typ)}}
	if typ == "custom" || typ == "custom_message" {
		all = append(append(all, members...), base...)
	} else {
		all = append(append(all, base...), members...)
	}
	return encodeMembers(all)
}

// encodeMembers writes an object of raw members, leaving out nil values.
func encodeMembers(ms []rawMember) []byte {
	b := []byte{'{'}
	for _, m := range ms {
		if m.value == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(appendJSString(b, m.key), ':'), m.value...)
	}
	return append(b, '}')
}

// leafParent returns the parentId pi gives the next entry: the leaf's id,
// null for an empty session, nil (key left out) after a non-object leaf.
func (s *Session) leafParent() []byte {
	leaf := s.Leaf()
	switch {
	case leaf == nil:
		return []byte("null")
	case leaf.Field("id") == nil:
		return nil
	}
	return leaf.Field("id")
}

// newID returns an entry id not yet used in the session.
func (s *Session) newID() string {
	return NewEntryID(func(id string) bool { return s.ByID(id) != nil })
}

// lastLine returns the number of the last line parsed.
func (s *Session) lastLine() int {
	n := 0
	if len(s.records) > 0 {
		n = s.records[len(s.records)-1].Line
	}
	for _, p := range s.Problems {
		n = max(n, p.Line)
	}
	return n
}

// sanitizeName is pi 1.6's name.replace(/[\r\n]+/g, " ").trim().
func sanitizeName(name string) string {
	return strings.TrimFunc(crlfRuns.ReplaceAllString(name, " "), isJSSpace)
}

var crlfRuns = regexp.MustCompile(`[\r\n]+`)

// Encode returns the file content for the records as they are in memory:
// every record's line and a newline, lines that were not JSON left out.
func (s *Session) Encode() []byte {
	var b bytes.Buffer
	for _, r := range s.records {
		b.Write(r.Raw)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// NewSessionID returns a session id as pi 0.73 makes them: a UUID v7.
func NewSessionID() string { return uuid.Must(uuid.NewV7()).String() }

// FileName returns pi's file name for a session created at ts with id.
func FileName(ts, id string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(ts) + "_" + id + ".jsonl"
}

// IDFromFileName returns the session id that FileName put at the end of
// path's file name, "" when the name does not end in "_<uuid>.jsonl". A
// fork names its parent by path, and that path is stale once the user moves
// or copies session files or renames a project folder; the file name is
// what still identifies the parent then. Only UUIDs count (every id pi
// makes is one), so that a hand-made name such as "my_notes.jsonl" never
// names a session.
func IDFromFileName(path string) string {
	name, ok := strings.CutSuffix(path[strings.LastIndexAny(path, `/\`)+1:], ".jsonl")
	i := strings.LastIndexByte(name, '_')
	if !ok || i < 0 {
		return ""
	}
	id := name[i+1:]
	if uuid.Validate(id) != nil || len(id) != 36 {
		return ""
	}
	return strings.ToLower(id)
}

// headerLine encodes a new header with pi's key order.
func headerLine(id, ts string, cwd []byte, parentSession []byte) []byte {
	return encodeMembers([]rawMember{{"type", []byte(`"session"`)}, {"version", []byte("3")},
		{"id", appendJSString(nil, id)}, {"timestamp", appendJSString(nil, ts)},
		{"cwd", cwd}, {"parentSession", parentSession}})
}

// LabelLine is the line of a label entry after s's leaf that sets the
// label of entry targetID (clears it, without the label key, when label
// is empty), as pi's appendLabelChange writes it now.
func (s *Session) LabelLine(targetID, label string) []byte {
	var v []byte
	if label != "" {
		v = appendJSString(nil, label)
	}
	return s.newLine("label", rawMember{"targetId", appendJSString(nil, targetID)}, rawMember{"label", v})
}

// NameLine is the line of a session_info entry after s's leaf that names
// the session (sanitizeName; empty clears it), as pi 1.6's
// appendSessionInfo writes it now.
func (s *Session) NameLine(name string) []byte {
	return s.newLine("session_info", rawMember{"name", appendJSString(nil, sanitizeName(name))})
}

// newLine is the line of a new entry of type typ after s's leaf, with a
// fresh id, stamped now.
func (s *Session) newLine(typ string, members ...rawMember) []byte {
	return entryLine(typ, s.newID(), s.leafParent(), nowISO(), members...)
}

// Appended records line, just appended to the file at offset s.Size, as
// the session's newest entry, and returns it.
func (s *Session) Appended(line []byte) *Entry {
	e := newEntry(line, s.lastLine()+1, s.Size, nil)
	s.Entries = append(s.Entries, e)
	s.ids()
	s.linked = false // its id may repeat one and take the entries' links
	s.Size += int64(len(line)) + 1
	return e
}

// WithParent is a session file's bytes with its header's parentSession
// changed from from to to.
func WithParent(data []byte, from, to string) ([]byte, error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		nl = len(data)
	}
	line := bytes.TrimRight(data[:nl], "\r")
	if !jsjson.Valid(line) || jsjson.SkipSpace(line, 0) >= len(line) || line[jsjson.SkipSpace(line, 0)] != '{' {
		return nil, ErrNoHeader
	}
	cur, _ := jsjson.DecodeString(jsjson.Field(line, "parentSession"))
	if cur != from {
		return nil, ErrParentChanged
	}
	var val []byte
	if to != "" {
		val = jsjson.AppendString(nil, to)
	}
	return append(setMember(line, "parentSession", val), data[len(line):]...), nil
}
