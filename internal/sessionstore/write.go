package sessionstore

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"piweb/internal/errs"
	"piweb/pisession"
)

// Everything piweb writes into a session file goes through this file: one
// O_APPEND write per line for new entries, and temp file, fsync, rename with
// a backup for the rare whole-file rewrite. Nothing is ever truncated.

// ErrChanged is returned when the file changed on disk since it was read,
// so the leaf the caller saw may no longer be pi's leaf.
var ErrChanged = errs.New(errs.Stale, "the session file changed meanwhile; reload and retry", "session file changed since it was read")

// appendNew adds the line that line makes (after migrating a file still on
// an older version, as pi would on open) after pi's leaf (the last entry)
// of the file at path, which s must be the current parse of, and returns
// the new entry. The file is opened O_APPEND and the line written in one
// write; a file whose last line lacks its newline gets one first, so a
// torn line is kept apart instead of merged.
func appendNew(path string, s *pisession.Session, line func() []byte) (*pisession.Entry, error) {
	if s.Header == nil {
		return nil, pisession.ErrNoHeader
	}
	if s.Migrated {
		if _, err := Migrate(path, s); err != nil {
			return nil, err
		}
	}
	l := line()
	if err := appendLine(path, s.Size, l); err != nil {
		return nil, err
	}
	return s.Appended(l), nil
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
func AppendLabel(path string, s *pisession.Session, targetID, label string) (*pisession.Entry, error) {
	if s.ByID(targetID) == nil {
		return nil, fmt.Errorf("%w: %s", pisession.ErrNotFound, targetID)
	}
	return appendNew(path, s, func() []byte { return s.LabelLine(targetID, label) })
}

// AppendName names the session as pi 1.6's appendSessionInfo does: runs
// of CR and LF become one space, then the name is trimmed; an empty name
// clears it.
func AppendName(path string, s *pisession.Session, name string) (*pisession.Entry, error) {
	return appendNew(path, s, func() []byte { return s.NameLine(name) })
}

// Migrate rewrites a file that was read from an older version in its
// migrated form, as pi does when it opens it, and re-reads it into s. It
// returns the backup path.
func Migrate(path string, s *pisession.Session) (string, error) {
	data := s.Encode()
	backup, err := RewriteFile(path, data, s.Size)
	if err != nil {
		return "", err
	}
	*s = *pisession.Parse(data)
	return backup, nil
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

// NewFile writes the content of a new session into dir under pi's file name
// (taken from its header) and returns the path.
func NewFile(dir string, content []byte) (string, error) {
	h := pisession.Parse(content).Header
	if h == nil {
		return "", pisession.ErrNoHeader
	}
	id, _ := h.String("id")
	path := filepath.Join(dir, pisession.FileName(h.Timestamp, id))
	return path, CreateFile(path, content)
}

// RepairFile rewrites the file at path, which s was read from, with Repair's
// content, through RewriteFile (refused with ErrChanged if the file grew
// since s was read), when s has defects or was migrated. It returns
// Repair's changes and the backup's path; none and "" when nothing needed
// repair.
func RepairFile(path string, s *pisession.Session, cwd string) (changes []string, backup string, err error) {
	if len(s.Defects()) == 0 && !s.Migrated {
		return nil, "", nil
	}
	content, changes := s.Repair(cwd)
	if backup, err = RewriteFile(path, content, s.Size); err != nil {
		return nil, "", err
	}
	return changes, backup, nil
}
