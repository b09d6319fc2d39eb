package sessionstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// trashFixture is a session with a parent and two forks.
type trashFixture struct {
	st              *Store
	mid, c1, c2, gp string
	midBytes        []byte
}

func newTrashFixture(t *testing.T) *trashFixture {
	t.Helper()
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", "--p--")
	os.MkdirAll(dir, 0o755)
	f := &trashFixture{st: &Store{AgentDir: agent}, gp: filepath.Join(dir, "gp.jsonl"),
		mid: filepath.Join(dir, "mid.jsonl"), c1: filepath.Join(dir, "c1.jsonl"), c2: filepath.Join(dir, "c2.jsonl")}
	write := func(p, id, parent string) []byte {
		h := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"`, id)
		if parent != "" {
			h += fmt.Sprintf(`,"parentSession":%q`, parent)
		}
		b := []byte(h + "}\n" + `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n")
		os.WriteFile(p, b, 0o600)
		return b
	}
	write(f.gp, "gp", "")
	f.midBytes = write(f.mid, "mid", f.gp)
	write(f.c1, "c1", f.mid)
	write(f.c2, "c2", f.mid)
	return f
}

// crashAt makes the Fault hook crash at the n-th call for step.
func crashAt(step string, n int) func(string) error {
	seen := 0
	return func(s string) error {
		if s == step {
			if seen++; seen == n {
				return ErrCrash
			}
		}
		return nil
	}
}

// settled checks the state is either "not deleted" or "deleted and
// restorable" with nothing left half-done, and returns which.
func (f *trashFixture) settled(t *testing.T) (deleted bool, item TrashItem) {
	t.Helper()
	items, err := f.st.ListTrash()
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := os.ReadDir(f.st.trashDir())
	if len(dirs) != len(items) {
		t.Errorf("%d trash folders for %d items", len(dirs), len(items))
	}
	_, midErr := os.Stat(f.mid)
	switch {
	case len(items) == 0 && midErr == nil:
		if b, _ := os.ReadFile(f.mid); string(b) != string(f.midBytes) {
			t.Errorf("the session changed: %s", b)
		}
		for _, c := range []string{f.c1, f.c2} {
			if p := parentOf(c); p != f.mid {
				t.Errorf("%s points at %q, want the session", filepath.Base(c), p)
			}
		}
		return false, TrashItem{}
	case len(items) == 1 && midErr != nil:
		it := items[0]
		if it.State != stateTrashed {
			t.Errorf("item state %q", it.State)
		}
		if b, _ := os.ReadFile(it.File); string(b) != string(f.midBytes) {
			t.Errorf("trashed file: %s", b)
		}
		for _, c := range []string{f.c1, f.c2} {
			if p := parentOf(c); p != f.gp {
				t.Errorf("%s points at %q, want the grandparent", filepath.Base(c), p)
			}
		}
		return true, it
	}
	t.Fatalf("not settled: %d trash items, session at its place: %v", len(items), midErr == nil)
	return false, TrashItem{}
}

var deleteSteps = []struct {
	step string
	n    int
}{{StepDeleteRecord, 1}, {StepDeleteMove, 1}, {StepDeleteRepoint, 1}, {StepDeleteRepoint, 2}, {StepDeleteCommit, 1}}

// TestTrashCrashAtEveryStep: a delete killed before any of its steps
// leaves a state that Recover settles into "not deleted" or "deleted",
// and a deleted session then restores with its forks pointing back.
func TestTrashCrashAtEveryStep(t *testing.T) {
	for _, c := range deleteSteps {
		t.Run(fmt.Sprintf("%s#%d", c.step, c.n), func(t *testing.T) {
			f := newTrashFixture(t)
			f.st.Fault = crashAt(c.step, c.n)
			if _, err := f.st.Trash(f.mid, nil); !errors.Is(err, ErrCrash) {
				t.Fatalf("Trash: %v", err)
			}
			f.st.Fault = nil
			f.st.Recover()
			deleted, it := f.settled(t)
			t.Logf("settled as deleted=%v", deleted)
			if deleted {
				if _, err := f.st.Restore(it.ID); err != nil {
					t.Fatal(err)
				}
				if deleted, _ := f.settled(t); deleted {
					t.Error("still deleted after restore")
				}
			}
		})
	}
}

// TestRestoreCrashAtEveryStep: the same for a restore.
func TestRestoreCrashAtEveryStep(t *testing.T) {
	t.Parallel() // one of the package's long tests; they share nothing and run side by side
	steps := []struct {
		step string
		n    int
	}{{StepRestoreRecord, 1}, {StepRestoreMove, 1}, {StepRestoreRepoint, 1}, {StepRestoreRepoint, 2}, {StepRestoreCommit, 1}}
	for _, c := range steps {
		t.Run(fmt.Sprintf("%s#%d", c.step, c.n), func(t *testing.T) {
			f := newTrashFixture(t)
			it, err := f.st.Trash(f.mid, nil)
			if err != nil {
				t.Fatal(err)
			}
			f.st.Fault = crashAt(c.step, c.n)
			if _, err := f.st.Restore(it.ID); !errors.Is(err, ErrCrash) {
				t.Fatalf("Restore: %v", err)
			}
			f.st.Fault = nil
			f.st.Recover()
			if deleted, it := f.settled(t); deleted {
				if _, err := f.st.Restore(it.ID); err != nil {
					t.Fatal(err)
				}
				f.settled(t)
			}
		})
	}
}

// TestTrashStepFailures: a step that fails (not a crash) leaves the
// session where it was, or in the trash restorable, never half-done.
func TestTrashStepFailures(t *testing.T) {
	for _, c := range deleteSteps {
		f := newTrashFixture(t)
		f.st.Fault = func(s string) error {
			if s == c.step {
				return errors.New("disk on fire")
			}
			return nil
		}
		f.st.Trash(f.mid, nil)
		f.st.Fault = nil
		f.settled(t)
	}
}

// TestBothPlacesRecovered: a record whose file is linked both at its place
// and in the trash (an old piweb killed between link and removal) is
// resolved to the live file, its forks pointing back at it.
func TestBothPlacesRecovered(t *testing.T) {
	f := newTrashFixture(t)
	it, err := f.st.Trash(f.mid, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Link(it.File, f.mid)
	f.st.Recover()
	if deleted, _ := f.settled(t); deleted {
		t.Error("the live file was trashed")
	}
}

// TestMoveUndoneWhenSourceStays: a move whose source cannot be removed (a
// read-only folder) removes its link in the destination again, so no
// hidden copy is left in the trash.
func TestMoveUndoneWhenSourceStays(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "a"), filepath.Join(dir, "trash-a")
	os.WriteFile(src, []byte("x\n"), 0o600)
	err := moveFile(src, dst, func(string) error { return os.ErrPermission })
	if err == nil {
		t.Fatal("move succeeded")
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("the destination link stayed: %v", err)
	}
	if _, err := os.Stat(src); err != nil {
		t.Errorf("source gone: %v", err)
	}
}

// TestReadOnlyFolderDelete: deleting from a folder the user cannot write
// fails and leaves nothing in the trash. Root ignores folder permissions,
// so this runs only as another user.
func TestReadOnlyFolderDelete(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders (TestMoveUndoneWhenSourceStays covers the undo)")
	}
	f := newTrashFixture(t)
	os.Chmod(filepath.Dir(f.mid), 0o555)
	defer os.Chmod(filepath.Dir(f.mid), 0o755)
	if _, err := f.st.Trash(f.mid, nil); err == nil {
		t.Fatal("delete succeeded in a read-only folder")
	}
	if dirs, _ := os.ReadDir(f.st.trashDir()); len(dirs) != 0 {
		t.Errorf("trash holds %d folders", len(dirs))
	}
}

// TestDebris: temp files older than TempMaxAge go, younger ones stay;
// backups are listed newest first and those older than BackupMaxAge are
// pruned.
func TestDebris(t *testing.T) {
	f := newTrashFixture(t)
	dir := filepath.Dir(f.mid)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.st.Now = func() time.Time { return now }
	oldTmp, newTmp := filepath.Join(dir, ".piweb-tmp-1"), filepath.Join(dir, ".piweb-tmp-2")
	os.WriteFile(oldTmp, nil, 0o600)
	os.WriteFile(newTmp, nil, 0o600)
	os.Chtimes(oldTmp, now.Add(-time.Hour), now.Add(-time.Hour))
	os.Chtimes(newTmp, now, now)
	oldB, newB := BackupPath(f.mid, now.Add(-31*24*time.Hour)), BackupPath(f.mid, now.Add(-24*time.Hour))
	os.WriteFile(oldB, []byte("old"), 0o600)
	os.WriteFile(newB, []byte("new"), 0o600)
	if n := f.st.CleanTemp(); n != 1 {
		t.Errorf("removed %d temp files", n)
	}
	if _, err := os.Stat(newTmp); err != nil {
		t.Error("a young temp file was removed")
	}
	bs := f.st.Backups()
	if len(bs) != 2 || bs[0].Path != newB || bs[0].Session != f.mid || bs[0].Size != 3 {
		t.Fatalf("backups %+v", bs)
	}
	if n := f.st.PruneBackups(); n != 1 {
		t.Errorf("pruned %d", n)
	}
	if bs := f.st.Backups(); len(bs) != 1 || bs[0].Path != newB {
		t.Errorf("after pruning %+v", bs)
	}
}

// TestCarryLate is issue 17.9's last gap closed at start: a line a writer
// put in the old file after a rewrite's carry ended (stalled in open(2)
// for longer than writerSettle) is only in the backup; Tidy copies it onto
// the session file, once. A backup that is still the session file (a
// crash before the rename) is not carried from.
func TestCarryLate(t *testing.T) {
	f := newTrashFixture(t)
	late := `{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"late","timestamp":2}}` + "\n"
	data := append(append([]byte{}, f.midBytes...), `{"type":"label","id":"l1","parentId":"m1","timestamp":"2026-01-01T00:00:03.000Z","targetId":"m1","label":"x"}`+"\n"...)
	backup, err := RewriteFile(f.mid, data, int64(len(f.midBytes)))
	if err != nil {
		t.Fatal(err)
	}
	if want := carriedName(backup, int64(len(f.midBytes))); backup != want {
		t.Errorf("backup %s, want %s", backup, want)
	}
	appendBytes(t, backup, []byte(late)) // the stalled writer's line
	same := carriedName(BackupPath(f.c1, time.Now()), 0)
	if err := os.Link(f.c1, same); err != nil {
		t.Fatal(err)
	}
	if n := f.st.CarryLate(); n != 1 {
		t.Errorf("carried from %d backups, want 1", n)
	}
	if n := f.st.CarryLate(); n != 0 {
		t.Errorf("carried again from %d backups", n)
	}
	got, _ := os.ReadFile(f.mid)
	if want := string(data) + late; string(got) != want {
		t.Errorf("session file = %q, want %q", got, want)
	}
	if bs := f.st.Backups(); len(bs) != 2 {
		t.Errorf("backups after carrying %+v", bs)
	}
}

// parentOf returns the parentSession of the session file at path.
func parentOf(path string) string {
	p, _ := headerParent(path)
	return p
}
