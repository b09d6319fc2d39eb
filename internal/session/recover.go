package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Recover settles every trash record that an interrupted delete or
// restore left (see recoverItem) and removes trash folders a crash left
// before their record was written. piweb runs it at start.
func (st *Store) Recover() {
	ds, err := os.ReadDir(st.trashDir())
	if err != nil {
		return
	}
	for _, d := range ds {
		if !d.IsDir() {
			continue
		}
		it, err := st.readTrash(d.Name())
		if err == nil {
			st.recoverItem(it)
			continue
		}
		st.removeUnrecorded(filepath.Join(st.trashDir(), d.Name()))
	}
	st.relink("") // heals forks whatever step a kill cut
}

// removeUnrecorded removes a trash folder without a record if it holds no
// session file: a delete crashed after creating it, before its journal.
func (st *Store) removeUnrecorded(dir string) {
	if _, err := os.Stat(filepath.Join(dir, "trash.json")); !errors.Is(err, fs.ErrNotExist) {
		return // a record that cannot be read: leave it for a person
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(files) > 0 {
		return
	}
	os.RemoveAll(dir)
}

// recoverItem brings a trash record to a settled state after a crash or a
// failed step, from what is on disk. A delete whose file is still at its
// place is undone; one whose file reached the trash is completed. A
// restore whose file is back is completed; otherwise the item stays in the
// trash. A file linked at both places (a move cut between link and
// removal) is resolved to one place, and a record whose file is gone is
// removed.
func (st *Store) recoverItem(it TrashItem) {
	orig, oerr := os.Stat(it.Original)
	trashed, terr := os.Stat(it.File)
	atOrig, inTrash := oerr == nil, terr == nil
	both := atOrig && inTrash && os.SameFile(orig, trashed)
	switch {
	case it.State == statePurging:
		st.purge(it)
	case it.State == stateDeleting && both:
		if os.Remove(it.Original) != nil { // a read-only folder: undo instead
			removeItemDir(filepath.Dir(it.File))
			return
		}
		st.completeDelete(it)
	case it.State == stateDeleting && atOrig:
		removeItemDir(filepath.Dir(it.File)) // nothing was re-pointed yet
	case it.State == stateDeleting && inTrash:
		st.completeDelete(it)
	case both: // restoring, or an old record cut the same way
		os.Remove(it.File)
		st.finishRestore(&it, false)
	case it.State == stateRestoring && atOrig && !inTrash:
		st.finishRestore(&it, false)
	case inTrash && it.State != stateTrashed:
		it.State = stateTrashed
		writeRecord(it)
	case !inTrash && !atOrig || !inTrash && it.State != stateRestoring:
		removeItemDir(filepath.Dir(it.File)) // a ghost: nothing to restore
	}
}

// completeDelete re-points the children (relink skips those done) and
// marks the record trashed.
func (st *Store) completeDelete(it TrashItem) {
	changed, _ := st.relink("")
	it.State, it.Repointed = stateTrashed, changed
	writeRecord(it)
}
