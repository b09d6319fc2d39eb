package server

import (
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/client"
)

// TestCopiesAreSessions: copies of a session file (same header id) are
// each their own session: unique ids in the listing, each opening the file
// it was listed for, in search, lineage, rename and delete (issue 14.3).
func TestCopiesAreSessions(t *testing.T) {
	r := newRig(t, Options{})
	api, ctx := r.api(), t.Context()
	orig := r.item("Fix the flaky")
	origID, origPath := orig.ID, orig.Path
	data, _ := os.ReadFile(origPath)
	copy1 := filepath.Join(filepath.Dir(origPath), "backup copy.jsonl")
	copy2 := filepath.Join(r.d.AgentDir, "sessions", "--elsewhere--", filepath.Base(origPath))
	os.MkdirAll(filepath.Dir(copy2), 0o755)
	os.WriteFile(copy1, data, 0o600)
	os.WriteFile(copy2, data, 0o600)
	r.sync()

	ids := map[string]string{} // path -> id
	for _, s := range r.items() {
		id, path := s.ID, s.Path
		for p, other := range ids {
			if other == id {
				t.Fatalf("id %s listed for %s and %s", id, p, path)
			}
		}
		ids[path] = id
	}
	if ids[origPath] != origID || ids[copy1] == "" || ids[copy2] == "" {
		t.Fatalf("ids %v", ids)
	}
	detail := r.detail
	for _, p := range []string{origPath, copy1, copy2} {
		if got := detail(ids[p]).Session.Path; got != p {
			t.Errorf("GET %s opened %v, want %s", ids[p], got, p)
		}
	}
	// Search finds each copy under its own id.
	hitIDs := map[string]bool{}
	found, err := api.Search(ctx, client.SearchOptions{Text: "evening"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range found.Hits {
		if ids[h.Session.Path] != h.SessionID {
			t.Errorf("hit in %v has id %v", h.Session.Path, h.SessionID)
		}
		hitIDs[h.SessionID] = true
	}
	for _, p := range []string{origPath, copy1, copy2} {
		if !hitIDs[ids[p]] {
			t.Errorf("no hit for %s", filepath.Base(p))
		}
	}
	// The original's fork still links to the original.
	kids := detail(origID).Lineage.Children
	if len(kids) != 1 {
		t.Fatalf("original has %d children", len(kids))
	}
	forkID := kids[0].ID
	if p := detail(forkID).Session.ParentSessionID; p == nil || *p != origID {
		t.Errorf("fork's parent %v, want %s", p, origID)
	}
	// Rename and delete act on the copy they name.
	if _, err := api.Rename(ctx, ids[copy1], "The copy"); err != nil {
		t.Fatal(err)
	}
	if n := detail(origID).Session.Name; n != nil && *n == "The copy" {
		t.Error("renaming the copy renamed the original")
	}
	if _, err := api.Delete(ctx, ids[copy2]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(copy2); !os.IsNotExist(err) {
		t.Errorf("the deleted copy is still there: %v", err)
	}
	for _, p := range []string{origPath, copy1} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("deleting a copy removed %s", filepath.Base(p))
		}
	}
	if p := detail(forkID).Session.ParentSessionPath; p == nil || *p != origPath {
		t.Errorf("deleting a copy re-pointed the original's fork to %v", p)
	}
}

// TestDeletedOutside: a session file deleted or moved away by another
// program is reported as missing (not as moved to the trash), and as
// rewritten (so the page reloads it) when it is back (issue 14.4).
func TestDeletedOutside(t *testing.T) {
	r := newRig(t, Options{})
	s := r.item("Dark theme")
	path := s.Path
	ctx := t.Context()
	ch := listen(t)(r.api().SessionEvents(ctx, s.ID, ""))
	if hello := next(t, ch); hello.data["type"] != "hello" {
		t.Fatalf("first event %+v", hello)
	}
	aside := filepath.Join(t.TempDir(), "aside.jsonl")
	if err := os.Rename(path, aside); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.data["type"] != "session_missing" {
		t.Fatalf("after the move: %+v", ev)
	}
	if err := os.Rename(aside, path); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.data["type"] != "session_rewritten" {
		t.Fatalf("after the move back: %+v", ev)
	}
}
