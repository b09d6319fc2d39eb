package sessionstore

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"piweb/pisession"
	"strings"
	"testing"
	"time"
)

// lineageFamily is a 3-level chain of forks with siblings: P (forked from
// GP, which stays), C1 and S1 forks of P, C2 and S2 forks of C1.
type lineageFamily struct {
	st     *Store
	path   map[string]string // name -> path
	parent map[string]string // name -> lineage parent's name ("GP" for P)
	trash  map[string]string // name -> trash id while trashed
}

var familyParents = map[string]string{"P": "GP", "C1": "P", "S1": "P", "C2": "C1", "S2": "C1"}

func newLineageFamily(t testing.TB) *lineageFamily {
	agent := fastTempDir(t)
	dir := filepath.Join(agent, "sessions", "--p--")
	os.MkdirAll(dir, 0o755)
	f := &lineageFamily{st: &Store{AgentDir: agent, setParent: quickSetParent}, path: map[string]string{}, parent: maps.Clone(familyParents), trash: map[string]string{}}
	for i, n := range []string{"GP", "P", "C1", "S1", "C2", "S2"} {
		f.path[n] = filepath.Join(dir, fmt.Sprintf("2026-01-01T00-00-0%dZ_%s.jsonl", i, n))
	}
	for _, n := range []string{"GP", "P", "C1", "S1", "C2", "S2"} {
		h := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"`, n)
		if p := f.parent[n]; p != "" {
			h += fmt.Sprintf(`,"parentSession":%q`, f.path[p])
		}
		os.WriteFile(f.path[n], []byte(h+"}\n"+`{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`+"\n"), 0o600)
	}
	return f
}

// inPlace reports whether name's file is at its place.
func (f *lineageFamily) inPlace(name string) bool { return exists(f.path[name]) }

// check verifies every in-place file names its nearest in-place ancestor
// and every session is in exactly one place (in place or in the trash).
func (f *lineageFamily) check(t testing.TB, history []string) {
	t.Helper()
	items, _ := f.st.ListTrash()
	inTrash := map[string]int{}
	for _, it := range items {
		inTrash[it.Original]++
	}
	for n, p := range f.path {
		if places := inTrash[p]; places+btoi(f.inPlace(n)) != 1 {
			t.Fatalf("after %v: %s is in %d trash items, in place %v", history, n, places, f.inPlace(n))
		}
		if !f.inPlace(n) || f.parent[n] == "" {
			continue
		}
		want := f.parent[n]
		for !f.inPlace(want) {
			want = f.parent[want]
		}
		if got := parentOf(p); got != f.path[want] {
			t.Fatalf("after %v: %s names %s, want %s", history, n, filepath.Base(got), filepath.Base(f.path[want]))
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// apply deletes or restores name (a no-op when it is already so).
func (f *lineageFamily) apply(t testing.TB, op, name string) error {
	t.Helper()
	switch {
	case op == "D" && f.inPlace(name):
		it, err := f.st.Trash(f.path[name], nil)
		if err == nil {
			f.trash[name] = it.ID
		}
		return err
	case op == "R" && !f.inPlace(name):
		_, err := f.st.Restore(f.trashID(name))
		return err
	case op == "F" && !f.inPlace(name):
		err := f.st.DeleteForever(f.trashID(name))
		delete(f.path, name)
		return err
	}
	return nil
}

// trashID finds name's trash item from the trash itself (a crash may have
// completed or undone the operation that made it).
func (f *lineageFamily) trashID(name string) string {
	items, _ := f.st.ListTrash()
	for _, it := range items {
		if it.Original == f.path[name] {
			return it.ID
		}
	}
	return ""
}

// orders lists every sequence of events over names in which each name is
// deleted once and then restored (each event "D:name" or "R:name").
func orders(names []string) [][]string {
	var out [][]string
	var rec func(seq []string, state map[string]int)
	rec = func(seq []string, state map[string]int) {
		if len(seq) == 2*len(names) {
			out = append(out, append([]string(nil), seq...))
			return
		}
		for _, n := range names {
			if state[n] < 2 {
				state[n]++
				rec(append(seq, []string{"", "D", "R"}[state[n]]+":"+n), state)
				state[n]--
			}
		}
	}
	rec(nil, map[string]int{})
	return out
}

// TestLineageEveryOrder is issue 21.4: over every order of deleting and
// restoring P, C1, C2 and S1, after each step every file in place names its
// nearest in-place ancestor. It failed before: delete P, delete C1,
// restore P, restore C1 left C1 naming GP.
func TestLineageEveryOrder(t *testing.T) {
	t.Parallel() // one of the package's long tests; they share nothing and run side by side
	all := orders([]string{"P", "C1", "C2", "S1"})
	if testing.Short() {
		all = all[:len(all)/8]
	}
	t.Logf("%d orders of 8 steps", len(all))
	for part := range 8 { // in parallel: 2,520 orders
		t.Run(fmt.Sprint(part), func(t *testing.T) {
			t.Parallel()
			for _, seq := range all[part*len(all)/8 : (part+1)*len(all)/8] {
				f := newLineageFamily(t)
				for i, ev := range seq {
					op, name, _ := strings.Cut(ev, ":")
					if err := f.apply(t, op, name); err != nil {
						t.Fatalf("%v: %v", seq[:i+1], err)
					}
					f.check(t, seq[:i+1])
				}
			}
		})
	}
}

// TestLineageCrashes: the same orders with a kill at a random step of a
// random operation, recovered by Recover (as piweb's next start does),
// then the order goes on; lineage holds after every step.
func TestLineageCrashes(t *testing.T) {
	t.Parallel() // one of the package's long tests; they share nothing and run side by side
	all := orders([]string{"P", "C1", "C2", "S1"})
	rng := rand.New(rand.NewPCG(21, 4))
	n := 600
	if testing.Short() {
		n = 60
	}
	kills := 0
	for range n {
		seq := all[rng.IntN(len(all))]
		f := newLineageFamily(t)
		for i, ev := range seq {
			op, name, _ := strings.Cut(ev, ":")
			calls, at := 0, rng.IntN(6)
			f.st.Fault = func(string) error {
				if calls++; calls == at {
					return ErrCrash
				}
				return nil
			}
			err := f.apply(t, op, name)
			f.st.Fault = nil
			if errors.Is(err, ErrCrash) {
				kills++
				f.st.Recover()
			} else if err != nil {
				t.Fatalf("%v: %v", seq[:i+1], err)
			}
			f.check(t, seq[:i+1])
		}
	}
	t.Logf("%d orders, %d kills", n, kills)
}

// TestLineageDeleteForever: a trashed session deleted for good hands its
// forks to its own lineage parent, in place or trashed.
func TestLineageDeleteForever(t *testing.T) {
	for _, seq := range [][]string{
		{"D:P", "D:C1", "F:C1", "R:P"},
		{"D:C1", "D:P", "F:C1", "R:P"},
		{"D:C1", "D:P", "F:P", "R:C1"},
		{"D:P", "D:C1", "F:P", "R:C1"},
	} {
		f := newLineageFamily(t)
		for i, ev := range seq {
			op, name, _ := strings.Cut(ev, ":")
			if err := f.apply(t, op, name); err != nil {
				t.Fatalf("%v: %v", seq[:i+1], err)
			}
			if op == "F" { // the forgotten session's children skip it
				for c, p := range f.parent {
					if p == name {
						f.parent[c] = familyParents[name]
					}
				}
			}
			f.check(t, seq[:i+1])
		}
	}
}

// fastTempDir is a temp dir on tmpfs when there is one (/dev/shm), where
// fsync costs nothing: the order tests make thousands of synced rewrites.
func fastTempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("/dev/shm", "piweb-lineage-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// quickSetParent is SetParent without its wait for late writers (a
// rename of a temp file): these tests check the lineage, not the rewrite.
func quickSetParent(path, from, to string) error {
	return setParent(path, from, to, func(path string, out []byte, _ int64) error {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, out, 0o600); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	})
}

// TestRepointKeepsOneBackup is issue 21.4's backups: cycles of deleting
// and restoring a parent with forks leave one backup per fork (each
// re-point is a rewrite), not one per rewrite, and a backup holding other
// content (a repair's) stays.
func TestRepointKeepsOneBackup(t *testing.T) {
	f := newTrashFixture(t)
	dir := filepath.Dir(f.mid)
	other := BackupPath(f.c1, time.Now().Add(-time.Hour))
	os.WriteFile(other, []byte(`{"type":"session","id":"c1"}`+"\ngarbage\n"), 0o600)
	os.Rename(other, carriedName(other, 40))
	for range 3 {
		it, err := f.st.Trash(f.mid, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.st.Restore(it.ID); err != nil {
			t.Fatal(err)
		}
	}
	f.settled(t)
	got := map[string]int{}
	for _, b := range f.st.Backups() {
		got[filepath.Base(b.Session)]++
	}
	if want := map[string]int{"c1.jsonl": 2, "c2.jsonl": 1}; !maps.Equal(got, want) {
		t.Errorf("backups per session %v, want %v (in %s)", got, want, dir)
	}
}

// TestSetParentKeepsBytes: re-pointing a header keeps every other byte,
// writes the new path as JSON.stringify does (U+2028 and / unescaped,
// unlike encoding/json), and refuses when the parent is not the expected
// one.
func TestSetParentKeepsBytes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	head := `{"type":"session","version":3,"id":"a<b>","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x\u2028y","parentSession":"/old/p.jsonl"}`
	rest := `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi <&>","timestamp":1}}` + "\n"
	os.WriteFile(p, []byte(head+"\n"+rest), 0o600)
	if err := SetParent(p, "/other", "/new"); err != pisession.ErrParentChanged {
		t.Fatalf("wrong from: %v", err)
	}
	to := "/new/a\u2028b & <c>.jsonl"
	if err := SetParent(p, "/old/p.jsonl", to); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := strings.Replace(head, `"/old/p.jsonl"`, "\"/new/a\u2028b & <c>.jsonl\"", 1) + "\n" + rest
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := SetParent(p, to, ""); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(p)
	if want := strings.Replace(head, `,"parentSession":"/old/p.jsonl"`, "", 1) + "\n" + rest; string(got) != want {
		t.Errorf("removed: got\n%s\nwant\n%s", got, want)
	}
}
