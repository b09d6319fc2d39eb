package piconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"piweb/internal/errs"
	"piweb/internal/jsjson"
	"piweb/internal/own"
)

// CorruptError reports a config file that JSON.parse (after pi's BOM strip)
// refuses, or whose top level is not an object. The file is left as is.
type CorruptError struct {
	Path   string
	Offset int // byte offset of the problem, -1 when not a syntax error
	Msg    string
}

func (e *CorruptError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s is not valid JSON (%s at byte %d); it was left as it is", filepath.Base(e.Path), e.Msg, e.Offset)
	}
	return fmt.Sprintf("%s is not valid: %s; it was left as it is", filepath.Base(e.Path), e.Msg)
}

// InvalidError reports a value piweb refuses to write (a setting of the
// wrong type, a key with a line break). Its message is meant for the user.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

// ErrorKind is errs.Invalid (errs.Classified).
func (e *InvalidError) ErrorKind() errs.Kind { return errs.Invalid }

// ClientMessage is Msg, written for the user.
func (e *InvalidError) ClientMessage() string { return e.Msg }

// ErrorKind is errs.Corrupt: replacing the file is asked for explicitly
// (errs.Classified).
func (e *CorruptError) ErrorKind() errs.Kind { return errs.Corrupt }

// ClientMessage names the file by its base name only.
func (e *CorruptError) ClientMessage() string { return e.Error() }

func invalidf(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// ErrLocked is returned when pi's lock on a file stays held (another pi is
// writing it) for longer than a write waits.
var ErrLocked = errs.New(errs.Busy, "another pi is writing the file; try again", "piconfig: the file is locked by another process")

// doc is one config file as read: its bytes (nil when absent) and, when
// they parse, its top-level object.
type doc struct {
	path   string
	raw    []byte
	exists bool
	obj    jsjson.Object
	mode   fs.FileMode
}

var bom = []byte("\xef\xbb\xbf")

// readDoc reads path as pi does (readFileSync, stripBom, JSON.parse). A
// missing or empty file is an empty object, as pi's loaders treat it.
func readDoc(path string) (*doc, error) {
	d := &doc{path: path, mode: 0o644}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	} else if err != nil {
		return nil, err
	}
	d.raw, d.exists = b, true
	if fi, err := os.Stat(path); err == nil {
		d.mode = fi.Mode().Perm()
	}
	text := bytes.TrimPrefix(b, bom)
	if len(text) == 0 {
		return d, nil
	}
	v, err := jsjson.Parse(text)
	if err != nil {
		var se *jsjson.SyntaxError
		if errors.As(err, &se) {
			return d, &CorruptError{Path: path, Offset: se.Offset + len(b) - len(text), Msg: syntaxMsg(se)}
		}
		return d, &CorruptError{Path: path, Offset: -1, Msg: err.Error()}
	}
	if v.Kind() != jsjson.ObjectKind {
		return d, &CorruptError{Path: path, Offset: -1, Msg: "the top level is not an object"}
	}
	d.obj = v.Object()
	return d, nil
}

// syntaxMsg is a SyntaxError's message without the package prefix and offset.
func syntaxMsg(se *jsjson.SyntaxError) string {
	s := se.Error()
	s = s[len("jsjson: "):]
	if i := bytes.LastIndex([]byte(s), []byte(" at offset ")); i >= 0 {
		s = s[:i]
	}
	return s
}

// writeFile replaces path with data atomically: a temp file in the same
// folder is written and synced with the given mode, the old content is
// saved as path+".bak" (same mode, synced), and the temp file is renamed
// over path; the folder is synced last. Identical content is not written.
func writeFile(path string, old []byte, oldExists bool, data []byte, mode fs.FileMode) error {
	if oldExists && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if oldExists {
		if err := own.WriteFile(path+".bak", old, 0o600); err != nil { // a backup may hold keys: the user's alone
			return fmt.Errorf("back up %s: %w", filepath.Base(path), err)
		}
	}
	return own.WriteFile(path, data, mode)
}

// saveCorrupt keeps a corrupt file's bytes as path+".corrupt-<time>" before
// a caller replaces it.
func saveCorrupt(path string, raw []byte, mode fs.FileMode, now time.Time) (string, error) {
	dst := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	return dst, own.WriteFile(dst, raw, mode)
}
