package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"piweb/internal/errs"
)

// The steps of a delete and of a restore, in order, as the Fault hook
// names them. A delete writes its journal (the trash record, state
// "deleting"), moves the file into the trash, re-points each child, and
// marks the record "trashed". A restore marks the record "restoring",
// moves the file back, re-points each child back, and removes the record.
// A crash between any two steps leaves a record that Recover completes or
// undoes (see recoverItem).
const (
	StepDeleteRecord   = "delete.record"
	StepDeleteMove     = "delete.move"
	StepDeleteRepoint  = "delete.repoint"
	StepDeleteCommit   = "delete.commit"
	StepRestoreRecord  = "restore.record"
	StepRestoreMove    = "restore.move"
	StepRestoreRepoint = "restore.repoint"
	StepRestoreCommit  = "restore.commit"
)

// The states of a trash record.
const (
	stateDeleting  = "deleting"
	stateTrashed   = "trashed"
	stateRestoring = "restoring"
)

// TrashItem is one trashed session: its record (trash.json) in its own
// folder of the trash, beside the file.
type TrashItem struct {
	ID       string `json:"trashId"`
	Original string `json:"originalPath"`
	Deleted  string `json:"deleted"`
	// File is where the trashed file is; not stored.
	File string `json:"-"`
	// Children are the forks to re-point, with the parentSession their
	// headers had; Repointed lists those re-pointed to OldParent.
	Children  []ChildFile `json:"children,omitempty"`
	Repointed []string    `json:"repointed"`
	// OldParent is the deleted session's own parentSession, which its
	// children now point to.
	OldParent string `json:"oldParent"`
	// State is the journal: deleting, trashed or restoring.
	State string `json:"state,omitempty"`
}

// ChildFile is a fork of a session being deleted: its file and the
// parentSession its header has now. That is the deleted session's path, or
// a stale path whose file name holds its id; re-pointing checks the header
// still says it.
type ChildFile struct {
	Path   string `json:"path"`
	Parent string `json:"parent"`
}

// ErrTrashItem is returned for a trash id that names no trash item.
var ErrTrashItem = errs.New(errs.NotFound, "trash item not found", "trash item not found")

func (st *Store) trashDir() string { return filepath.Join(st.AgentDir, "trash") }

// Trash moves the session file at path into the trash and re-points its
// children to its own parent, journaled so that a crash at any step is
// completed or undone by Recover. On a failure the session stays (or is
// put back) where it was, with its children pointing at it.
func (st *Store) Trash(path string, children []ChildFile) (TrashItem, error) {
	s, err := ReadFile(path)
	if err != nil {
		return TrashItem{}, err
	}
	var oldParent string
	if s.Header != nil {
		oldParent, _ = s.Header.String("parentSession")
	}
	now := st.now().UTC()
	id := now.Format("20060102T150405") + "-" + randHex(4)
	it := TrashItem{ID: id, Original: path, Deleted: now.Format(time.RFC3339), OldParent: oldParent,
		File: filepath.Join(st.trashDir(), id, filepath.Base(path)), Children: children,
		Repointed: []string{}, State: stateDeleting}
	if err := st.trash(&it); err != nil {
		if errors.Is(err, ErrCrash) {
			return TrashItem{}, err
		}
		st.recoverItem(it)
		if done, rerr := st.readTrash(id); rerr == nil && done.State == stateTrashed {
			return done, nil // completed: the file reached the trash
		}
		return TrashItem{}, err
	}
	return it, nil
}

// trash runs the steps of a delete.
func (st *Store) trash(it *TrashItem) error {
	if err := st.fault(StepDeleteRecord); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(it.File), 0o700); err != nil {
		return fmt.Errorf("create trash: %w", err)
	}
	if err := writeRecord(*it); err != nil {
		return err
	}
	if err := st.fault(StepDeleteMove); err != nil {
		return err
	}
	if err := MoveFile(it.Original, it.File); err != nil {
		return err
	}
	for _, c := range it.Children {
		if err := st.fault(StepDeleteRepoint); err != nil {
			return err
		}
		if SetParent(c.Path, c.Parent, it.OldParent) == nil {
			it.Repointed = append(it.Repointed, c.Path)
		}
	}
	if err := st.fault(StepDeleteCommit); err != nil {
		return err
	}
	it.State = stateTrashed
	return writeRecord(*it)
}

// Restore moves a trashed session back (never over another file) and
// points the children it re-pointed back at it, journaled like Trash.
func (st *Store) Restore(trashID string) (TrashItem, error) {
	it, err := st.readTrash(trashID)
	if err != nil {
		return TrashItem{}, err
	}
	if it.State != stateTrashed && it.State != "" {
		st.recoverItem(it)
		if it, err = st.readTrash(trashID); err != nil {
			return TrashItem{}, err
		}
	}
	if err := st.restore(&it); err != nil {
		if errors.Is(err, ErrCrash) {
			return TrashItem{}, err
		}
		st.recoverItem(it)
		if _, serr := os.Stat(filepath.Dir(it.File)); errors.Is(serr, fs.ErrNotExist) {
			return it, nil // completed: the file is back
		}
		return TrashItem{}, err
	}
	return it, nil
}

// restore runs the steps of a restore.
func (st *Store) restore(it *TrashItem) error {
	if err := st.fault(StepRestoreRecord); err != nil {
		return err
	}
	it.State = stateRestoring
	if err := writeRecord(*it); err != nil {
		return err
	}
	if err := st.fault(StepRestoreMove); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(it.Original), 0o755); err != nil {
		return err
	}
	// MoveFile never replaces a file: a taken path is refused atomically.
	if err := MoveFile(it.File, it.Original); err != nil {
		return err
	}
	return st.finishRestore(*it)
}

// finishRestore re-points the children back and removes the record.
func (st *Store) finishRestore(it TrashItem) error {
	for _, c := range it.Repointed {
		if err := st.fault(StepRestoreRepoint); err != nil {
			return err
		}
		SetParent(c, it.OldParent, it.Original)
	}
	if err := st.fault(StepRestoreCommit); err != nil {
		return err
	}
	return removeItemDir(filepath.Dir(it.File))
}

// DeleteForever removes a trashed session and its record for good.
func (st *Store) DeleteForever(trashID string) error {
	it, err := st.readTrash(trashID)
	if err != nil {
		return err
	}
	return os.RemoveAll(filepath.Dir(it.File))
}

// ListTrash lists the trashed sessions, newest first. Records of an
// operation in progress are listed as they are; Recover settles them.
func (st *Store) ListTrash() ([]TrashItem, error) {
	ds, err := os.ReadDir(st.trashDir())
	if errors.Is(err, fs.ErrNotExist) {
		return []TrashItem{}, nil
	} else if err != nil {
		return nil, fmt.Errorf("read trash: %w", err)
	}
	items := []TrashItem{}
	for _, d := range ds {
		if it, err := st.readTrash(d.Name()); err == nil && it.State != stateDeleting {
			items = append(items, it)
		}
	}
	slices.SortFunc(items, func(a, b TrashItem) int { return strings.Compare(b.ID, a.ID) })
	return items, nil
}

func (st *Store) readTrash(id string) (TrashItem, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return TrashItem{}, ErrTrashItem
	}
	dir := filepath.Join(st.trashDir(), id)
	b, err := os.ReadFile(filepath.Join(dir, "trash.json"))
	if err != nil {
		return TrashItem{}, ErrTrashItem
	}
	var it TrashItem
	if err := json.Unmarshal(b, &it); err != nil || it.Original == "" {
		return TrashItem{}, ErrTrashItem
	}
	it.ID = id
	it.File = filepath.Join(dir, filepath.Base(it.Original))
	if it.Repointed == nil {
		it.Repointed = []string{}
	}
	return it, nil
}

// writeRecord replaces the item's record atomically (temp file, fsync,
// rename, folder fsync).
func writeRecord(it TrashItem) error {
	dir := filepath.Dir(it.File)
	b, _ := json.MarshalIndent(it, "", "  ")
	tmp, err := writeTemp(dir, b)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "trash.json")); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write trash record: %w", err)
	}
	return syncDir(dir)
}

// removeItemDir removes a trash item's folder, record last, so a crash
// midway leaves either the record or nothing.
func removeItemDir(dir string) error {
	ds, _ := os.ReadDir(dir)
	for _, d := range ds {
		if d.Name() != "trash.json" {
			os.RemoveAll(filepath.Join(dir, d.Name()))
		}
	}
	os.Remove(filepath.Join(dir, "trash.json"))
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
