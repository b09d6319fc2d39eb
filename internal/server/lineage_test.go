package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"piweb/internal/session"
	"piweb/internal/testkit"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// movedParent moves the demo's "Fix the flaky" session, which has a fork,
// to another project folder, as when a user renames a project folder or
// copies sessions from another machine. The fork's header still names the
// old path. It returns the parent's id, old and new paths and the fork.
func movedParent(t *testing.T, r *rig) (id, oldPath, newPath string, fork map[string]any) {
	t.Helper()
	flaky := r.find("Fix the flaky")
	id, oldPath = flaky["id"].(string), flaky["path"].(string)
	fork = r.json("GET", "/api/sessions/"+id, nil, 200)["lineage"].(map[string]any)["children"].([]any)[0].(map[string]any)
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

// TestLineageMovedParent: a fork whose parent file was moved still links
// to it, by the id in the parent's file name, both ways; the header's path
// is reported as it is.
func TestLineageMovedParent(t *testing.T) {
	r := newRig(t, Options{})
	id, oldPath, _, fork := movedParent(t, r)
	forkID := fork["id"].(string)
	f := r.json("GET", "/api/sessions/"+forkID, nil, 200)
	if s := f["session"].(map[string]any); s["parentSessionId"] != id || s["parentSessionPath"] != oldPath {
		t.Errorf("fork's parentSessionId %v, parentSessionPath %v; want %s, %s",
			s["parentSessionId"], s["parentSessionPath"], id, oldPath)
	}
	lin := f["lineage"].(map[string]any)
	if p, _ := lin["parent"].(map[string]any); p == nil || p["id"] != id {
		t.Errorf("fork's lineage parent %v, want %s", lin["parent"], id)
	}
	if a := lin["ancestors"].([]any); len(a) != 1 {
		t.Errorf("ancestors %v", a)
	}
	var kids []any
	for _, c := range r.json("GET", "/api/sessions/"+id, nil, 200)["lineage"].(map[string]any)["children"].([]any) {
		kids = append(kids, c.(map[string]any)["id"])
	}
	if len(kids) != 1 || kids[0] != forkID {
		t.Errorf("parent's children %v, want [%s]", kids, forkID)
	}
	for _, s := range r.sessions() {
		if s["id"] == forkID && s["parentSessionId"] != id {
			t.Errorf("listed fork's parentSessionId %v", s["parentSessionId"])
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
	f := r.json("GET", "/api/sessions/"+fork["id"].(string), nil, 200)
	if s := f["session"].(map[string]any); s["parentSessionId"] != nil {
		t.Errorf("parentSessionId %v for a parent that is gone", s["parentSessionId"])
	}
	if lin := f["lineage"].(map[string]any); lin["parent"] != nil {
		t.Errorf("lineage parent %v", lin["parent"])
	}
}

// TestDeleteMovedParent: deleting a moved parent re-points its fork to the
// parent's own parent (none here) although the fork named the old path;
// restoring points the fork at where the parent really is.
func TestDeleteMovedParent(t *testing.T) {
	r := newRig(t, Options{})
	id, _, newPath, fork := movedParent(t, r)
	forkID := fork["id"].(string)
	trashID := r.json("DELETE", "/api/sessions/"+id, map[string]any{}, 200)["trashId"].(string)
	s := r.json("GET", "/api/sessions/"+forkID, nil, 200)["session"].(map[string]any)
	if s["parentSessionPath"] != nil {
		t.Errorf("fork still points at %v", s["parentSessionPath"])
	}
	r.json("POST", "/api/trash/"+trashID+"/restore", map[string]any{}, 200)
	s = r.json("GET", "/api/sessions/"+forkID, nil, 200)["session"].(map[string]any)
	if s["parentSessionPath"] != newPath || s["parentSessionId"] != id {
		t.Errorf("after restore the fork points at %v (%v), want %s", s["parentSessionPath"], s["parentSessionId"], newPath)
	}
}

// TestDeleteMovedParentFails: a failed delete leaves the fork's header as
// it was, stale path included.
func TestDeleteMovedParentFails(t *testing.T) {
	r := newRig(t, Options{})
	r.srv.store.Fault = func(step string) error {
		if step == session.StepDeleteMove {
			return errors.New("disk on fire")
		}
		return nil
	}
	id, _, _, fork := movedParent(t, r)
	before, _ := os.ReadFile(fork["path"].(string))
	r.json("DELETE", "/api/sessions/"+id, map[string]any{}, 500)
	if after, _ := os.ReadFile(fork["path"].(string)); string(after) != string(before) {
		t.Errorf("fork changed:\n%s\nwas\n%s", after, before)
	}
}

// TestIndexLineageAgrees: over the index, a fork of a moved parent links
// to it too, and every session's parentSessionId is the index's own.
func TestIndexLineageAgrees(t *testing.T) {
	r := newIndexRig(t)
	flaky := r.find("Fix the flaky")
	id := flaky["id"].(string)
	fork := r.json("GET", "/api/sessions/"+id, nil, 200)["lineage"].(map[string]any)["children"].([]any)[0].(map[string]any)
	newPath := filepath.Join(r.d.AgentDir, "sessions", "--renamed-project--", filepath.Base(flaky["path"].(string)))
	os.MkdirAll(filepath.Dir(newPath), 0o755)
	if err := os.Rename(flaky["path"].(string), newPath); err != nil {
		t.Fatal(err)
	}
	// The move is a removal and an addition: between them the session
	// is briefly not listed at all.
	testkit.Eventually(t, func() bool {
		for _, s := range r.sessions() {
			if s["path"] == newPath {
				return true
			}
		}
		return false
	}, 10*time.Second, "the index to see the move")
	if p := r.json("GET", "/api/sessions/"+fork["id"].(string), nil, 200)["lineage"].(map[string]any)["parent"]; p == nil || p.(map[string]any)["id"] != id {
		t.Errorf("fork's parent %v, want %s", p, id)
	}
	metas, err := r.ix.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[any]any{}
	for _, m := range metas {
		if m.ParentSessionID != "" {
			want[m.SessionID] = m.ParentSessionID
		}
	}
	got := map[any]any{}
	for _, s := range r.sessions() {
		if s["parentSessionId"] != nil {
			got[s["id"]] = s["parentSessionId"]
		}
	}
	if diff := cmp.Diff(want, got); diff != "" || want[fork["id"]] != id {
		t.Errorf("parent ids (-index +server):\n%s", diff)
	}
}
