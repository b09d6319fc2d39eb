package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"piweb/internal/session"
)

// Store performs the session mutations. Every write goes through the
// session package's safe primitives: appends are single O_APPEND writes,
// rewrites keep a backup, and delete is a move into the trash.
type Store interface {
	Rename(path, name string) error
	Label(path, entryID, label string) error
	Fork(path, entryID string) (newPath, text string, err error)
	Clone(path, leafID string) (newPath string, err error)
	// Trash moves the session at path into the trash and re-points the
	// given children (its forks) to its parent.
	Trash(path string, children []ChildFile) (TrashItem, error)
	ListTrash() ([]TrashItem, error)
	// Restore moves a trashed session back and re-points its children back.
	Restore(trashID string) (path string, err error)
}

// TrashItem describes one trashed session.
type TrashItem struct {
	ID        string   `json:"trashId"`
	Original  string   `json:"originalPath"`
	Deleted   string   `json:"deleted"`
	File      string   `json:"-"`
	Repointed []string `json:"repointed"`
	// OldParent is the deleted session's own parentSession, which its
	// children now point to.
	OldParent string `json:"oldParent"`
}

// ChildFile is a fork of a session being deleted: its file and the
// parentSession its header has now. That is the deleted session's path, or
// a stale path whose file name holds its id (Catalog.Parent); re-pointing
// checks the header still says it.
type ChildFile struct{ Path, Parent string }

// FileStore is the Store over the agent dir.
type FileStore struct {
	AgentDir string
	// move moves a session into the trash; nil is session.MoveFile. Tests
	// set it to make the move fail.
	move func(src, dst string) error
}

// moveToTrash moves the session file at path to dst in the trash, across
// file systems too (a project's own session folder may be on another disk).
func (fs_ *FileStore) moveToTrash(path, dst string) error {
	move := fs_.move
	if move == nil {
		move = session.MoveFile
	}
	err := move(path, dst)
	if errors.Is(err, session.ErrChanged) {
		return errorf(Busy, "the session changed while it was being deleted; try again")
	} else if err != nil {
		return wrap(Internal, err, "cannot move the session to the trash")
	}
	return nil
}

func (fs_ *FileStore) trashDir() string { return filepath.Join(fs_.AgentDir, "trash") }

// fresh parses the file for a write: never the shared cached parse, since
// appending updates the Session it is given.
func fresh(path string) (*session.Session, error) {
	s, err := session.ReadFile(path)
	if err != nil {
		return nil, storeErr(err)
	}
	return s, nil
}

func storeErr(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return wrap(NotFound, err, "session file is gone")
	case errors.Is(err, session.ErrChanged):
		return wrap(Stale, err, "the session file changed meanwhile; reload and retry")
	case errors.Is(err, session.ErrNotFound):
		return wrap(NotFound, err, "entry not found")
	case errors.Is(err, session.ErrNoHeader):
		return wrap(Invalid, err, "the session file has no valid header")
	}
	return wrap(Internal, err, "cannot write session")
}

// Rename appends a session_info entry, retrying once if another writer
// appended in between.
func (fs_ *FileStore) Rename(path, name string) error {
	return appendRetry(path, func(s *session.Session) error {
		_, err := session.AppendName(path, s, name)
		return err
	})
}

// Label appends a label entry.
func (fs_ *FileStore) Label(path, entryID, label string) error {
	return appendRetry(path, func(s *session.Session) error {
		_, err := session.AppendLabel(path, s, entryID, label)
		return err
	})
}

func appendRetry(path string, do func(*session.Session) error) error {
	var err error
	for range 3 {
		var s *session.Session
		if s, err = fresh(path); err != nil {
			return err
		}
		if err = do(s); !errors.Is(err, session.ErrChanged) {
			break
		}
	}
	if err != nil {
		return storeErr(err)
	}
	return nil
}

// Fork writes pi's fork before a user message beside the source.
func (fs_ *FileStore) Fork(path, entryID string) (string, string, error) {
	s, err := fresh(path)
	if err != nil {
		return "", "", err
	}
	e := s.ByID(entryID)
	if e == nil {
		return "", "", errorf(NotFound, "entry not found")
	}
	if e.Role() != "user" {
		return "", "", errorf(Invalid, "fork needs a user message entry")
	}
	content, err := s.ForkBefore(entryID, path)
	if err != nil {
		return "", "", storeErr(err)
	}
	np, err := session.NewFile(filepath.Dir(path), content)
	if err != nil {
		return "", "", storeErr(err)
	}
	return np, messageText(e), nil
}

// Clone writes the branch ending at leafID (default the leaf) beside the
// source.
func (fs_ *FileStore) Clone(path, leafID string) (string, error) {
	s, err := fresh(path)
	if err != nil {
		return "", err
	}
	var content []byte
	if leafID == "" {
		content, err = s.Clone(path)
	} else {
		content, err = s.Extract(leafID, path)
	}
	if err != nil {
		return "", storeErr(err)
	}
	np, err := session.NewFile(filepath.Dir(path), content)
	if err != nil {
		return "", storeErr(err)
	}
	return np, nil
}

// Trash moves the file into <agentDir>/trash/<id>/ with a record of where
// it came from, after re-pointing its children to its own parent.
func (fs_ *FileStore) Trash(path string, children []ChildFile) (TrashItem, error) {
	s, err := fresh(path)
	if err != nil {
		return TrashItem{}, err
	}
	var oldParent string
	if s.Header != nil {
		oldParent, _ = s.Header.String("parentSession")
	}
	id := time.Now().UTC().Format("20060102T150405") + "-" + randHex(4)
	dir := filepath.Join(fs_.trashDir(), id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return TrashItem{}, wrap(Internal, err, "cannot create trash")
	}
	it := TrashItem{ID: id, Original: path, Deleted: time.Now().UTC().Format(time.RFC3339),
		File: filepath.Join(dir, filepath.Base(path)), OldParent: oldParent, Repointed: []string{}}
	was := map[string]string{}
	for _, c := range children {
		if err := setParent(c.Path, c.Parent, oldParent); err == nil {
			it.Repointed = append(it.Repointed, c.Path)
			was[c.Path] = c.Parent
		}
	}
	err = writeTrashRecord(dir, it)
	if err == nil {
		err = fs_.moveToTrash(path, it.File)
	}
	if err != nil {
		// The session stays where it is, so its children point at it again.
		for _, c := range it.Repointed {
			setParent(c, oldParent, was[c])
		}
		os.Remove(filepath.Join(dir, "trash.json"))
		os.Remove(dir)
		return TrashItem{}, err
	}
	return it, nil
}

func writeTrashRecord(dir string, it TrashItem) error {
	b, _ := json.MarshalIndent(it, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "trash.json"), b, 0o600); err != nil {
		return wrap(Internal, err, "cannot write trash record")
	}
	return nil
}

// ListTrash lists trashed sessions, newest first.
func (fs_ *FileStore) ListTrash() ([]TrashItem, error) {
	ds, err := os.ReadDir(fs_.trashDir())
	if errors.Is(err, fs.ErrNotExist) {
		return []TrashItem{}, nil
	} else if err != nil {
		return nil, wrap(Internal, err, "cannot read trash")
	}
	items := []TrashItem{}
	for _, d := range ds {
		if it, err := fs_.readTrash(d.Name()); err == nil {
			items = append(items, it)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].ID > items[j].ID })
	return items, nil
}

func (fs_ *FileStore) readTrash(id string) (TrashItem, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return TrashItem{}, errorf(NotFound, "trash item not found")
	}
	dir := filepath.Join(fs_.trashDir(), id)
	b, err := os.ReadFile(filepath.Join(dir, "trash.json"))
	if err != nil {
		return TrashItem{}, errorf(NotFound, "trash item not found")
	}
	var it TrashItem
	if err := json.Unmarshal(b, &it); err != nil {
		return TrashItem{}, errorf(NotFound, "trash item not found")
	}
	it.File = filepath.Join(dir, filepath.Base(it.Original))
	return it, nil
}

// Restore moves the file back (never over another file) and points the
// children that still name its old parent back at it.
func (fs_ *FileStore) Restore(trashID string) (string, error) {
	it, err := fs_.readTrash(trashID)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(it.Original), 0o755); err != nil {
		return "", wrap(Internal, err, "cannot restore")
	}
	// MoveFile never replaces a file: a taken path is refused atomically.
	if err := session.MoveFile(it.File, it.Original); errors.Is(err, fs.ErrExist) {
		return "", errorf(Busy, "a file already exists where the session was")
	} else if err != nil {
		return "", wrap(Internal, err, "cannot restore")
	}
	for _, c := range it.Repointed {
		setParent(c, it.OldParent, it.Original)
	}
	os.RemoveAll(filepath.Dir(it.File))
	return it.Original, nil
}

// setParent rewrites the header of the session at path so parentSession
// is to (removed when to is ""), if it currently is from. The rewrite keeps
// every other byte and a backup.
func setParent(path, from, to string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		nl = len(data)
	}
	line := bytes.TrimRight(data[:nl], "\r")
	var h map[string]json.RawMessage
	if json.Unmarshal(line, &h) != nil {
		return fmt.Errorf("bad header")
	}
	var cur string
	json.Unmarshal(h["parentSession"], &cur)
	if cur != from {
		return fmt.Errorf("parent changed")
	}
	var val []byte
	if to != "" {
		val, _ = json.Marshal(to)
	}
	newLine, err := setMember(line, "parentSession", val)
	if err != nil {
		return err
	}
	out := append(append([]byte{}, newLine...), data[nl:]...)
	_, err = session.RewriteFile(path, out, int64(len(data)))
	return err
}

// setMember replaces (or removes, for nil val, or appends) one top-level
// member of a JSON object, keeping the others' bytes and order.
func setMember(obj []byte, key string, val []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	out := []byte{'{'}
	found := false
	add := func(k string, v []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		out = append(append(append(out, kb...), ':'), v...)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		k := t.(string)
		if k == key {
			found = true
			if val != nil {
				add(k, val)
			}
			continue
		}
		add(k, v)
	}
	if !found && val != nil {
		add(key, val)
	}
	return append(out, '}'), nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
