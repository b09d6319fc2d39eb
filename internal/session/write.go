package session

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"piweb/internal/errs"
)

// Everything piweb writes into a session file goes through this file: one
// O_APPEND write per line for new entries, and temp file, fsync, rename with
// a backup for the rare whole-file rewrite. Nothing is ever truncated.

// ErrNoHeader is returned when asked to write to a file without a valid
// header: pi would throw such a file away, so piweb will not add to it.
var ErrNoHeader = errs.New(errs.Invalid, "the session file has no valid header", "session file has no valid header")

// ErrChanged is returned when the file changed on disk since it was read,
// so the leaf the caller saw may no longer be pi's leaf.
var ErrChanged = errs.New(errs.Stale, "the session file changed meanwhile; reload and retry", "session file changed since it was read")

// ErrNotFound is returned for an entry id that is not in the session.
var ErrNotFound = errs.New(errs.NotFound, "entry not found", "entry not found")

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

// Append adds one entry of type typ after pi's leaf (the last entry) of the
// file at path, which s must be the current parse of, and returns the new
// entry. The file is opened O_APPEND and the line written in one write; a
// file whose last line lacks its newline gets one first, so a torn line is
// kept apart instead of merged. Files still on an older version are migrated
// first, as pi would on open.
func Append(path string, s *Session, typ string, members ...rawMember) (*Entry, error) {
	if s.Header == nil {
		return nil, ErrNoHeader
	}
	if s.Migrated {
		if _, err := Migrate(path, s); err != nil {
			return nil, err
		}
	}
	line := entryLine(typ, s.newID(), s.leafParent(), nowISO(), members...)
	if err := appendLine(path, s.Size, line); err != nil {
		return nil, err
	}
	e := newEntry(line, s.lastLine()+1, s.Size, nil)
	s.Entries = append(s.Entries, e)
	s.byID[e.idKey] = e
	s.Size += int64(len(line)) + 1
	return e, nil
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

// appendLine writes line and a newline at the end of the file in one write,
// after checking the file still has the size the caller parsed.
func appendLine(path string, size int64, line []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	defer f.Close()
	return appendTo(f, size, line)
}

// appendFile is what an append needs of the file; tests make writes fail.
type appendFile interface {
	io.Writer
	io.ReaderAt
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
	Close() error
}

// appendTo appends to f, opened O_APPEND, which must have size bytes. A
// write that fails half-way (a full disk) is undone: the file is cut back
// to size, but only when it holds nothing else than our partial write
// (nobody appended meanwhile); the error says what became of it.
func appendTo(f appendFile, size int64, line []byte) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	if st.Size() != size {
		return ErrChanged
	}
	buf := make([]byte, 0, len(line)+2)
	if size > 0 && !endsWithNewline(f, size) {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if n, err := f.Write(buf); err != nil {
		return fmt.Errorf("append: %w%s", err, undoShortWrite(f, size, n))
	}
	return f.Close()
}

// undoShortWrite removes the n bytes a failed append wrote after size and
// describes the outcome for the error message.
func undoShortWrite(f appendFile, size int64, n int) string {
	if n <= 0 {
		return ""
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		return fmt.Sprintf(" (%d bytes of a partial line may remain: %v)", n, err)
	case st.Size() != size+int64(n):
		return fmt.Sprintf(" (a partial line of %d bytes remains: the file grew meanwhile, so it was not cut)", n)
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Sprintf(" (a partial line of %d bytes remains: %v)", n, err)
	}
	return " (the partial line was removed)"
}

func endsWithNewline(f io.ReaderAt, size int64) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], size-1)
	return err == nil && b[0] == '\n'
}

// AppendLabel sets (or with an empty label clears) the label of an entry,
// like pi's appendLabelChange. A clear is written without the label key.
func AppendLabel(path string, s *Session, targetID, label string) (*Entry, error) {
	if s.ByID(targetID) == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, targetID)
	}
	var v []byte
	if label != "" {
		v = appendJSString(nil, label)
	}
	return Append(path, s, "label", rawMember{"targetId", appendJSString(nil, targetID)}, rawMember{"label", v})
}

// AppendName names the session as pi 1.6's appendSessionInfo does: runs
// of CR and LF become one space, then the name is trimmed; an empty name
// clears it.
func AppendName(path string, s *Session, name string) (*Entry, error) {
	name = SanitizeName(name)
	return Append(path, s, "session_info", rawMember{"name", appendJSString(nil, name)})
}

// SanitizeName is pi 1.6's name.replace(/[\r\n]+/g, " ").trim().
func SanitizeName(name string) string {
	return strings.TrimFunc(crlfRuns.ReplaceAllString(name, " "), isJSSpace)
}

var crlfRuns = regexp.MustCompile(`[\r\n]+`)

// Migrate rewrites a file that was read from an older version in its
// migrated form, as pi does when it opens it, and re-reads it into s. It
// returns the backup path.
func Migrate(path string, s *Session) (string, error) {
	data := s.Encode()
	backup, err := RewriteFile(path, data, s.Size)
	if err != nil {
		return "", err
	}
	*s = *Parse(data)
	return backup, nil
}

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

// BackupPath names the backup of a session file. The name does not end in
// .jsonl, so neither pi nor piweb lists it as a session.
func BackupPath(path string, t time.Time) string {
	return path + ".piweb-backup-" + t.UTC().Format("20060102T150405.000000000Z")
}

// writeTemp writes data to a new synced temp file in dir.
func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".piweb-tmp-*")
	if err != nil {
		return "", fmt.Errorf("write temp file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write temp file: %w", err)
	}
	return f.Name(), nil
}

// CreateFile writes a new session file at path, which must not exist,
// atomically: the file appears whole or not at all.
func CreateFile(path string, data []byte) error { return createFile(path, data, syncDir) }

// createFile is CreateFile with the folder's sync given (tests fail it).
// A sync that fails removes the new file again: the caller is told the
// creation failed, and a file left behind would be a second fork or
// clone on its retry.
func createFile(path string, data []byte, sync func(dir string) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	tmp, err := writeTemp(filepath.Dir(path), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil { // fails if path exists
		return fmt.Errorf("create session: %w", err)
	}
	if err := sync(filepath.Dir(path)); err != nil {
		if rerr := os.Remove(path); rerr != nil {
			return fmt.Errorf("create session: %w; %s stays (cannot remove it: %v)", err, path, rerr)
		}
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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
