package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/catalog"
	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
)

// movedParent moves the demo's "Fix the flaky" session, which has a fork,
// to another project folder, as when a user renames a project folder or
// copies sessions from another machine. The fork's header still names the
// old path. It returns the parent's id, old and new paths and the fork.
func movedParent(t *testing.T, r *rig) (id, oldPath, newPath string, fork catalog.Item) {
	t.Helper()
	flaky := r.item("Fix the flaky")
	id, oldPath = flaky.ID, flaky.Path
	fork = r.detail(id).Lineage.Children[0]
	newPath = filepath.Join(r.d.AgentDir, "sessions", "--renamed-project--", filepath.Base(oldPath))
	if err := os.MkdirAll(filepath.Dir(newPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(oldPath, newPath); err != nil {
		t.Fatal(err)
	}
	r.sync()
	return id, oldPath, newPath, fork
}

// val is what p points at, or nil: a JSON null as the answer has it.
func val(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestLineageMovedParent: a fork whose parent file was moved still links
// to it, by the id in the parent's file name, both ways; the header's path
// is reported as it is.
func TestLineageMovedParent(t *testing.T) {
	r := newRig(t, Options{})
	id, oldPath, _, fork := movedParent(t, r)
	f := r.detail(fork.ID)
	if s := f.Session; val(s.ParentSessionID) != id || val(s.ParentSessionPath) != oldPath {
		t.Errorf("fork's parentSessionId %v, parentSessionPath %v; want %s, %s",
			val(s.ParentSessionID), val(s.ParentSessionPath), id, oldPath)
	}
	if p := f.Lineage.Parent; p == nil || p.ID != id {
		t.Errorf("fork's lineage parent %v, want %s", p, id)
	}
	if a := f.Lineage.Ancestors; len(a) != 1 {
		t.Errorf("ancestors %v", a)
	}
	var kids []string
	for _, c := range r.detail(id).Lineage.Children {
		kids = append(kids, c.ID)
	}
	if len(kids) != 1 || kids[0] != fork.ID {
		t.Errorf("parent's children %v, want [%s]", kids, fork.ID)
	}
	for _, s := range r.items() {
		if s.ID == fork.ID && val(s.ParentSessionID) != id {
			t.Errorf("listed fork's parentSessionId %v", val(s.ParentSessionID))
		}
	}
}

// TestLineageUnknownName: a stale parent path whose file name holds no
// listed session's id links to nothing.
func TestLineageUnknownName(t *testing.T) {
	r := newRig(t, Options{})
	_, _, newPath, fork := movedParent(t, r)
	if err := os.Remove(newPath); err != nil {
		t.Fatal(err)
	}
	r.sync()
	f := r.detail(fork.ID)
	if s := f.Session; s.ParentSessionID != nil {
		t.Errorf("parentSessionId %v for a parent that is gone", *s.ParentSessionID)
	}
	if f.Lineage.Parent != nil {
		t.Errorf("lineage parent %v", f.Lineage.Parent)
	}
}

// TestDeleteMovedParent: deleting a moved parent re-points its fork to the
// parent's own parent (none here) although the fork named the old path;
// restoring points the fork at where the parent really is.
func TestDeleteMovedParent(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	id, _, newPath, fork := movedParent(t, r)
	del, err := api.Delete(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.detail(fork.ID).Session; s.ParentSessionPath != nil {
		t.Errorf("fork still points at %v", *s.ParentSessionPath)
	}
	if _, err := api.Restore(ctx, del.TrashID); err != nil {
		t.Fatal(err)
	}
	if s := r.detail(fork.ID).Session; val(s.ParentSessionPath) != newPath || val(s.ParentSessionID) != id {
		t.Errorf("after restore the fork points at %v (%v), want %s", val(s.ParentSessionPath), val(s.ParentSessionID), newPath)
	}
}

// TestDeleteMovedParentFails: a failed delete leaves the fork's header as
// it was, stale path included.
func TestDeleteMovedParentFails(t *testing.T) {
	r := newRig(t, Options{})
	r.srv.store.Fault = func(step string) error {
		if step == sessionstore.StepDeleteMove {
			return errors.New("disk on fire")
		}
		return nil
	}
	id, _, _, fork := movedParent(t, r)
	before, _ := os.ReadFile(fork.Path)
	_, err := r.api().Delete(t.Context(), id)
	wantErr(t, "delete", err, 500, "")
	if after, _ := os.ReadFile(fork.Path); string(after) != string(before) {
		t.Errorf("fork changed:\n%s\nwas\n%s", after, before)
	}
}

// TestIndexLineageAgrees: over the index, a fork of a moved parent links
// to it too, and every session's parentSessionId is the index's own.
func TestIndexLineageAgrees(t *testing.T) {
	r := newIndexRig(t)
	flaky := r.item("Fix the flaky")
	id := flaky.ID
	fork := r.detail(id).Lineage.Children[0]
	newPath := filepath.Join(r.d.AgentDir, "sessions", "--renamed-project--", filepath.Base(flaky.Path))
	os.MkdirAll(filepath.Dir(newPath), 0o755)
	if err := os.Rename(flaky.Path, newPath); err != nil {
		t.Fatal(err)
	}
	// The move is a removal and an addition: between them the session
	// is briefly not listed at all.
	testkit.Eventually(t, func() bool {
		for _, s := range r.items() {
			if s.Path == newPath {
				return true
			}
		}
		return false
	}, 10*time.Second, "the index to see the move")
	if p := r.detail(fork.ID).Lineage.Parent; p == nil || p.ID != id {
		t.Errorf("fork's parent %v, want %s", p, id)
	}
	metas, err := r.ix.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, m := range metas {
		if m.ParentSessionID != "" {
			want[m.SessionID] = m.ParentSessionID
		}
	}
	got := map[string]string{}
	for _, s := range r.items() {
		if s.ParentSessionID != nil {
			got[s.ID] = *s.ParentSessionID
		}
	}
	if diff := cmp.Diff(want, got); diff != "" || want[fork.ID] != id {
		t.Errorf("parent ids (-index +server):\n%s", diff)
	}
}
