package sessionstore

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

	"piweb/internal/durable"
	"piweb/internal/errs"
	"piweb/pisession"
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
	// StepTrashWait is the Fault step of an operation on the trash that
	// must wait for another one to finish (see lockTrash).
	StepTrashWait = "trash.wait"
)

// The states of a trash record.
const (
	stateDeleting  = "deleting"
	stateTrashed   = "trashed"
	stateRestoring = "restoring"
	statePurging   = "purging"
)

// TrashItem is one trashed session: its record (trash.json) in its own
// folder of the trash, beside the file.
type TrashItem struct {
	ID       string `json:"trashId"`
	Original string `json:"originalPath"`
	Deleted  string `json:"deleted"`
	// File is where the trashed file is; not stored.
	File string `json:"-"`
	// Children are the session's lineage children when it was deleted (the
	// files forked from it, in place or trashed), each with the
	// parentSession its header had then (see lineage.go).
	Children []ChildFile `json:"children,omitempty"`
	// Repointed lists the files whose headers the last step re-pointed
	// (for the caller to refresh); kept in the record for old piweb.
	Repointed []string `json:"repointed"`
	// OldParent is the deleted session's lineage parent: the session it
	// was forked from, in place or trashed, or "" for none.
	OldParent string `json:"oldParent"`
	// State is the journal: deleting, trashed, restoring or purging.
	State string `json:"state,omitempty"`
}

// ChildFile is a lineage child of a trashed session: its file and the
// parentSession its header had when the session was deleted (the
// session's path, or a stale path whose file name holds its id).
type ChildFile struct {
	Path   string `json:"path"`
	Parent string `json:"parent"`
}

// ErrTrashItem is returned for a trash id that names no trash item.
var ErrTrashItem = errs.New(errs.NotFound, "trash item not found", "trash item not found")

func (st *Store) trashDir() string { return filepath.Join(st.AgentDir, "trash") }

// lockTrash makes Trash, Restore, DeleteForever and Recover run one at a
// time: each reads trash records (its own and its lineage's) and rewrites
// some from what it read, so one running between another's steps would
// have its rewrite overwritten, or would write a record naming a session
// the other deleted for good. Readers (ListTrash) need no lock: a record
// is replaced whole by a rename. The Fault hook is called with
// StepTrashWait when the operation has to wait.
func (st *Store) lockTrash() (unlock func(), err error) {
	if !st.trashMu.TryLock() {
		if err := st.fault(StepTrashWait); err != nil {
			return nil, err
		}
		st.trashMu.Lock()
	}
	return st.trashMu.Unlock, nil
}

// Trash moves the session file at path into the trash and re-points its
// forks to its nearest in-place ancestor, journaled so that a crash at any
// step is completed or undone by Recover. The forks are found in the
// files of path's folder, every project folder under sessions/ and dirs.
// On a failure the session stays (or is put back) where it was, with its
// children pointing at it.
func (st *Store) Trash(path string, dirs []string) (TrashItem, error) {
	unlock, err := st.lockTrash()
	if err != nil {
		return TrashItem{}, err
	}
	defer unlock()
	s, err := pisession.ReadFile(path)
	if err != nil {
		return TrashItem{}, err
	}
	var parent, id string
	if s.Header != nil {
		parent, _ = s.Header.String("parentSession")
		id, _ = s.Header.String("id")
	}
	ix := st.loadTrash()
	now := st.now().UTC()
	tid := now.Format("20060102T150405") + "-" + randHex(4)
	it := TrashItem{ID: tid, Original: path, Deleted: now.Format(time.RFC3339),
		OldParent: ix.lineageParent(path, parent), File: filepath.Join(st.trashDir(), tid, filepath.Base(path)),
		Children: ix.childrenOf(path, id, st.lineageDirs(path, dirs)), Repointed: []string{}, State: stateDeleting}
	if err := st.trash(&it); err != nil {
		if errors.Is(err, ErrCrash) {
			return TrashItem{}, err
		}
		st.recoverItem(it)
		if done, rerr := st.readTrash(tid); rerr == nil && done.State == stateTrashed {
			return done, nil // completed: the file reached the trash
		}
		return TrashItem{}, err
	}
	return it, nil
}

// lineageDirs are the folders Trash looks for path's forks in.
func (st *Store) lineageDirs(path string, dirs []string) []string {
	out := []string{filepath.Dir(path)}
	for _, d := range pisession.DirEntries(filepath.Join(st.AgentDir, "sessions")) {
		if d.IsDir() {
			out = append(out, filepath.Join(st.AgentDir, "sessions", d.Name()))
		}
	}
	out = append(out, dirs...)
	slices.Sort(out)
	return slices.Compact(out)
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
	changed, err := st.relink(StepDeleteRepoint)
	if err != nil {
		return err
	}
	if err := st.fault(StepDeleteCommit); err != nil {
		return err
	}
	it.State, it.Repointed = stateTrashed, changed
	return writeRecord(*it)
}

// Restore moves a trashed session back (never over another file), points
// it at its nearest in-place ancestor and its forks back at it, journaled
// like Trash.
func (st *Store) Restore(trashID string) (TrashItem, error) {
	unlock, err := st.lockTrash()
	if err != nil {
		return TrashItem{}, err
	}
	defer unlock()
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
	if err := st.adopt(*it); err != nil {
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
	return st.finishRestore(it, true)
}

// adopt lists a session being restored among the children of its lineage
// parent's record when that parent is trashed and does not list it (a
// record an older piweb wrote), so that the header restore gives it
// follows the parent's restore.
func (st *Store) adopt(it TrashItem) error {
	p, ok := st.loadTrash().trashed(it.OldParent)
	if !ok || slices.ContainsFunc(p.Children, func(c ChildFile) bool { return c.Path == it.Original }) {
		return nil
	}
	p.Children = append(p.Children, ChildFile{Path: it.Original, Parent: it.OldParent})
	return writeRecord(p)
}

// finishRestore points the restored session at its nearest in-place
// ancestor, its forks back at it, and removes the record; forward says
// whether this is a restore (with its Fault steps) or a recovery.
func (st *Store) finishRestore(it *TrashItem, forward bool) error {
	repoint, commit := StepRestoreRepoint, StepRestoreCommit
	if !forward {
		repoint, commit = "", ""
	}
	ix := st.loadTrash()
	it.Repointed = []string{}
	if cur, ok := headerParent(it.Original); ok { // what it named when trashed
		if want := ix.resolve(it.OldParent); cur != want {
			if err := st.faultIf(repoint); err != nil {
				return err
			}
			if st.repoint(it.Original, cur, want) == nil {
				it.Repointed = append(it.Repointed, it.Original)
			}
		}
	}
	changed, err := st.relink(repoint)
	if err != nil {
		return err
	}
	it.Repointed = append(it.Repointed, changed...)
	if err := st.faultIf(commit); err != nil {
		return err
	}
	return removeItemDir(filepath.Dir(it.File))
}

// DeleteForever removes a trashed session and its record for good. Its
// lineage children become its lineage parent's: listed in the parent's
// record when that is trashed too, and trashed children's records name the
// parent. The record says "purging" meanwhile, which Recover completes.
func (st *Store) DeleteForever(trashID string) error {
	unlock, err := st.lockTrash()
	if err != nil {
		return err
	}
	defer unlock()
	it, err := st.readTrash(trashID)
	if err != nil {
		return err
	}
	if it.State != stateTrashed && it.State != "" && it.State != statePurging {
		st.recoverItem(it)
		if it, err = st.readTrash(trashID); err != nil {
			return err
		}
	}
	it.State = statePurging
	if err := writeRecord(it); err != nil {
		return err
	}
	return st.purge(it)
}

// purge hands a purging record's children to its lineage parent and
// removes the item.
func (st *Store) purge(it TrashItem) error {
	ix := st.loadTrash()
	if p, ok := ix.trashed(it.OldParent); ok {
		n := len(p.Children)
		for _, c := range it.Children {
			if !slices.ContainsFunc(p.Children, func(pc ChildFile) bool { return pc.Path == c.Path }) {
				p.Children = append(p.Children, c)
			}
		}
		if len(p.Children) > n {
			if err := writeRecord(p); err != nil {
				return err
			}
		}
	}
	for _, c := range it.Children {
		if ch, ok := ix.trashed(c.Path); ok && ch.OldParent == it.Original {
			ch.OldParent = it.OldParent
			if err := writeRecord(ch); err != nil {
				return err
			}
		}
	}
	return removeItemDir(filepath.Dir(it.File))
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
		if it, err := st.readTrash(d.Name()); err == nil && it.State != stateDeleting && it.State != statePurging {
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
	tmp, err := durable.TempFile(dir, b)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "trash.json")); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write trash record: %w", err)
	}
	return durable.SyncDir(dir)
}

// removeItemDir removes a trash item's folder, record last, so a crash
// midway leaves either the record or nothing.
func removeItemDir(dir string) error {
	ds, _ := os.ReadDir(dir)
	var failed []error // why the folder cannot go, when it cannot
	for _, d := range ds {
		if d.Name() != "trash.json" {
			failed = append(failed, os.RemoveAll(filepath.Join(dir, d.Name())))
		}
	}
	if err := os.Remove(filepath.Join(dir, "trash.json")); !errors.Is(err, fs.ErrNotExist) {
		failed = append(failed, err)
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errors.Join(append(failed, err)...)
	}
	return durable.SyncDir(filepath.Dir(dir))
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
