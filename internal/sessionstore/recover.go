package sessionstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StepRecoverRecord is the Fault step before Recover writes a record (its
// journal) when it settles an item.
const StepRecoverRecord = "recover.record"

// Recover settles every trash record that an interrupted delete or
// restore left (see recoverItem) and removes trash folders a crash left
// before their record was written. piweb runs it at start. What it
// cannot do (a record it cannot write, a file it cannot remove) is
// logged: the item stays for the next start or a person.
func (st *Store) Recover() {
	unlock, err := st.lockTrash()
	if err != nil {
		return
	}
	defer unlock()
	ds, err := os.ReadDir(st.trashDir())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			st.log().Error("trash recovery: cannot read the trash", "err", err)
		}
		return
	}
	for _, d := range ds {
		if !d.IsDir() {
			continue
		}
		it, err := st.readTrash(d.Name())
		if err == nil {
			if err := st.recoverItem(it); err != nil {
				st.log().Error("trash recovery: an item stays unsettled", "item", d.Name(), "session", it.Original, "err", err)
			}
			continue
		}
		if err := st.removeUnrecorded(filepath.Join(st.trashDir(), d.Name())); err != nil {
			st.log().Error("trash recovery: cannot remove a folder without a record", "item", d.Name(), "err", err)
		}
	}
	if _, err := st.relink(""); err != nil { // heals forks whatever step a kill cut
		st.log().Error("trash recovery: cannot re-point forks", "err", err)
	}
}

// removeUnrecorded removes a trash folder without a record if it holds no
// session file: a delete crashed after creating it, before its journal.
func (st *Store) removeUnrecorded(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "trash.json")); !errors.Is(err, fs.ErrNotExist) {
		return nil // a record that cannot be read: leave it for a person
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(files) > 0 {
		return nil
	}
	return os.RemoveAll(dir)
}

// recoverItem brings a trash record to a settled state after a crash or a
// failed step, from what is on disk. A delete whose file is still at its
// place is undone; one whose file reached the trash is completed. A
// restore whose file is back is completed; otherwise the item stays in the
// trash. A file linked at both places (a move cut between link and
// removal) is resolved to one place, and a record whose file is gone is
// removed. It returns what failed on the way.
func (st *Store) recoverItem(it TrashItem) error {
	orig, oerr := os.Stat(it.Original)
	trashed, terr := os.Stat(it.File)
	atOrig, inTrash := oerr == nil, terr == nil
	both := atOrig && inTrash && os.SameFile(orig, trashed)
	switch {
	case it.State == statePurging:
		return st.purge(it)
	case it.State == stateDeleting && both:
		if os.Remove(it.Original) != nil { // a read-only folder: undo instead
			return removeItemDir(filepath.Dir(it.File))
		}
		return st.completeDelete(it)
	case it.State == stateDeleting && atOrig:
		return removeItemDir(filepath.Dir(it.File)) // nothing was re-pointed yet
	case it.State == stateDeleting && inTrash:
		return st.completeDelete(it)
	case both: // restoring, or an old record cut the same way
		err := os.Remove(it.File)
		return errors.Join(err, st.finishRestore(&it, false))
	case it.State == stateRestoring && atOrig && !inTrash:
		return st.finishRestore(&it, false)
	case inTrash && it.State != stateTrashed:
		it.State = stateTrashed
		return st.recoverRecord(it)
	case !inTrash && !atOrig || !inTrash && it.State != stateRestoring:
		return removeItemDir(filepath.Dir(it.File)) // a ghost: nothing to restore
	}
	return nil
}

// completeDelete re-points the children (relink skips those done) and
// marks the record trashed.
func (st *Store) completeDelete(it TrashItem) error {
	changed, err := st.relink("")
	it.State, it.Repointed = stateTrashed, changed
	return errors.Join(err, st.recoverRecord(it))
}

// recoverRecord writes a record Recover settled.
func (st *Store) recoverRecord(it TrashItem) error {
	if err := st.fault(StepRecoverRecord); err != nil {
		return err
	}
	if err := writeRecord(it); err != nil {
		return fmt.Errorf("write the trash record of %s: %w", it.Original, err)
	}
	return nil
}
