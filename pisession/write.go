package pisession

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"piweb/internal/durable"
	"piweb/internal/errs"
)

// The two writes the library makes, with the guarantees piweb's own writes
// have: an entry is appended with one O_APPEND write of its whole line,
// refused when the file is no longer the size it was parsed at; a new
// session file appears whole or not at all, and never over another file.

// Append adds line, one entry made for s (LabelLine, NameLine, or the
// caller's own with its id and s's leaf as parentId), at the end of the
// file at path, which s must be the current parse of, and returns the new
// entry as s now holds it (s.Size has grown by what was written).
//
// The line and its newline go out in one write to the file opened
// O_APPEND, after checking that the file still has s.Size bytes (else
// ErrChanged); a file whose last line lacks its newline gets one first,
// so that a torn line stays apart. A write that fails half-way (a full
// disk) is cut back when nothing else was appended meanwhile; the error
// says what became of it. Files without a valid header (ErrNoHeader) and
// of an older version (ErrOldVersion) are refused, and so is a line that is
// not one JSON object without a newline.
func Append(path string, s *Session, line []byte) (*Entry, error) {
	if s.Header == nil {
		return nil, ErrNoHeader
	}
	if s.Migrated {
		return nil, ErrOldVersion
	}
	if !oneObject(line) {
		return nil, errNotOneObject
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	defer f.Close()
	n, err := appendTo(f, s.Size, line)
	if err != nil {
		return nil, err
	}
	e := s.Appended(line)
	s.Size += n - int64(len(line)+1) // the newline a torn last line got
	return e, nil
}

// errNotOneObject refuses a line that would not be one entry: pi splits
// lines on \n only, so a newline in it would make two broken lines.
var errNotOneObject = errs.New(errs.Invalid, "an entry must be one JSON object on one line", "entry line is not one JSON object")

// oneObject reports whether line is a JSON object without a newline.
func oneObject(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r")
	return len(t) > 0 && t[0] == '{' && bytes.IndexByte(line, '\n') < 0 && json.Valid(line)
}

// appendFile is what an append needs of the file; tests make writes fail.
type appendFile interface {
	io.Writer
	io.ReaderAt
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
	Close() error
}

// appendTo appends line to f, opened O_APPEND, which must have size bytes,
// and returns the number of bytes written.
func appendTo(f appendFile, size int64, line []byte) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("append: %w", err)
	}
	if st.Size() != size {
		return 0, ErrChanged
	}
	buf := make([]byte, 0, len(line)+2)
	if size > 0 && !endsWithNewline(f, size) {
		buf = append(buf, '\n')
	}
	buf = append(append(buf, line...), '\n')
	if n, err := f.Write(buf); err != nil {
		return 0, fmt.Errorf("append: %w%s", err, undoShortWrite(f, size, n))
	}
	return int64(len(buf)), f.Close()
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

// Create writes content, a whole new session (what Extract, ForkBefore,
// Clone and ForkTo return), into the folder dir under pi's file name for
// it (FileName of its header's timestamp and id) and returns the new
// file's path. The file appears whole or not at all (a synced temp file
// linked into place, the folder synced), and an existing file is never
// replaced. Missing folders are made.
func Create(dir string, content []byte) (string, error) {
	h := Parse(content).Header
	if h == nil {
		return "", ErrNoHeader
	}
	id, _ := h.String("id")
	path := filepath.Join(dir, FileName(h.Timestamp, id))
	if err := durable.Create(path, content); err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	return path, nil
}

// Fork writes a new session beside the file at path, which s was read
// from, holding the branch from the root to the entry entryID (Extract:
// pi's createBranchedSession, the /tree "branch to a new session"), whose
// header names path as its parentSession, and returns the new file's
// path. For pi's /fork of a user message, Create what ForkBefore returns.
func Fork(path string, s *Session, entryID string) (string, error) {
	content, err := s.Extract(entryID, path)
	if err != nil {
		return "", err
	}
	return Create(filepath.Dir(path), content)
}
