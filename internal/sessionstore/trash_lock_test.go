package sessionstore

import (
	"strings"
	"sync"
	"testing"
)

// TestTrashOperationsOneAtATime: an operation on the trash started while
// another is between its steps waits for it. Run between them, a delete
// forever of P re-points C1's record at P's parent, and C1's restore then
// writes its journal from the record it read before (naming P), or C1's
// delete writes a record naming P after P is gone: either way C1 ends up
// naming a session that no longer exists. The other operation runs from
// the first one's Fault hook, which goes on when the other has finished
// (no lock) or has to wait (StepTrashWait).
func TestTrashOperationsOneAtATime(t *testing.T) {
	for _, c := range []struct {
		name        string
		before      []string
		op, step    string
		forget      string // the session deleted for good meanwhile
		restoreLast []string
	}{
		{"restore while its parent is deleted forever", []string{"D:P", "D:C1"}, "R:C1", StepRestoreRecord, "P", nil},
		{"delete while its parent is deleted forever", []string{"D:P"}, "D:C1", StepDeleteRecord, "P", []string{"R:C1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newLineageFamily(t)
			for _, ev := range c.before {
				op, name, _ := strings.Cut(ev, ":")
				if err := f.apply(t, op, name); err != nil {
					t.Fatalf("%s: %v", ev, err)
				}
			}
			forgetID := f.trashID(c.forget)
			done, waited := make(chan error, 1), make(chan struct{})
			var start, wait sync.Once
			f.st.Fault = func(step string) error {
				switch step {
				case StepTrashWait:
					wait.Do(func() { close(waited) })
				case c.step:
					start.Do(func() {
						go func() { done <- f.st.DeleteForever(forgetID) }()
						select {
						case err := <-done: // ran between this operation's steps
							done <- err
						case <-waited:
						}
					})
				}
				return nil
			}
			op, name, _ := strings.Cut(c.op, ":")
			if err := f.apply(t, op, name); err != nil {
				t.Fatalf("%s: %v", c.op, err)
			}
			if err := <-done; err != nil {
				t.Fatalf("delete forever: %v", err)
			}
			f.st.Fault = nil
			delete(f.path, c.forget)
			for n, p := range f.parent {
				if p == c.forget {
					f.parent[n] = familyParents[c.forget]
				}
			}
			history := append(append(append([]string{}, c.before...), c.op, "F:"+c.forget), c.restoreLast...)
			for _, ev := range c.restoreLast {
				op, name, _ := strings.Cut(ev, ":")
				if err := f.apply(t, op, name); err != nil {
					t.Fatalf("%s: %v", ev, err)
				}
			}
			f.check(t, history)
		})
	}
}

// TestTrashConcurrentFamily deletes four sessions of a family of forks at
// once, then restores them at once (the race detector's test): every fork
// still names its nearest in-place ancestor.
func TestTrashConcurrentFamily(t *testing.T) {
	names := []string{"P", "C1", "S1", "C2"}
	for range 20 {
		f := newLineageFamily(t)
		ids := make([]string, len(names))
		var wg sync.WaitGroup
		for i, n := range names {
			wg.Go(func() {
				it, err := f.st.Trash(f.path[n], nil)
				if err != nil {
					t.Errorf("delete %s: %v", n, err)
				}
				ids[i] = it.ID
			})
		}
		wg.Wait()
		f.check(t, []string{"D:*"})
		for _, id := range ids {
			wg.Go(func() {
				if _, err := f.st.Restore(id); err != nil {
					t.Errorf("restore: %v", err)
				}
			})
		}
		wg.Wait()
		f.check(t, []string{"D:*", "R:*"})
	}
}
