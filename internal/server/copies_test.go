package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCopiesAreSessions: copies of a session file (same header id) are
// each their own session: unique ids in the listing, each opening the file
// it was listed for, in search, lineage, rename and delete (issue 14.3).
func TestCopiesAreSessions(t *testing.T) {
	r := newRig(t, Options{})
	orig := r.find("Fix the flaky")
	origID, origPath := orig["id"].(string), orig["path"].(string)
	data, _ := os.ReadFile(origPath)
	copy1 := filepath.Join(filepath.Dir(origPath), "backup copy.jsonl")
	copy2 := filepath.Join(r.d.AgentDir, "sessions", "--elsewhere--", filepath.Base(origPath))
	os.MkdirAll(filepath.Dir(copy2), 0o755)
	os.WriteFile(copy1, data, 0o600)
	os.WriteFile(copy2, data, 0o600)
	r.sync()

	ids := map[string]string{} // path -> id
	for _, s := range r.sessions() {
		id, path := s["id"].(string), s["path"].(string)
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
	for _, p := range []string{origPath, copy1, copy2} {
		got := r.json("GET", "/api/sessions/"+ids[p], nil, 200)["session"].(map[string]any)["path"]
		if got != p {
			t.Errorf("GET %s opened %v, want %s", ids[p], got, p)
		}
	}
	// Search finds each copy under its own id.
	hitIDs := map[any]bool{}
	for _, h := range r.json("GET", "/api/search?q=evening", nil, 200)["hits"].([]any) {
		hm := h.(map[string]any)
		sess := hm["session"].(map[string]any)
		if ids[sess["path"].(string)] != hm["sessionId"] {
			t.Errorf("hit in %v has id %v", sess["path"], hm["sessionId"])
		}
		hitIDs[hm["sessionId"]] = true
	}
	for _, p := range []string{origPath, copy1, copy2} {
		if !hitIDs[ids[p]] {
			t.Errorf("no hit for %s", filepath.Base(p))
		}
	}
	// The original's fork still links to the original.
	kids := r.json("GET", "/api/sessions/"+origID, nil, 200)["lineage"].(map[string]any)["children"].([]any)
	if len(kids) != 1 {
		t.Fatalf("original has %d children", len(kids))
	}
	forkID := kids[0].(map[string]any)["id"].(string)
	if p := r.json("GET", "/api/sessions/"+forkID, nil, 200)["session"].(map[string]any)["parentSessionId"]; p != origID {
		t.Errorf("fork's parent %v, want %s", p, origID)
	}
	// Rename and delete act on the copy they name.
	r.json("POST", "/api/sessions/"+ids[copy1]+"/rename", map[string]string{"name": "The copy"}, 200)
	if n := r.json("GET", "/api/sessions/"+origID, nil, 200)["session"].(map[string]any)["name"]; n == "The copy" {
		t.Error("renaming the copy renamed the original")
	}
	r.json("DELETE", "/api/sessions/"+ids[copy2], map[string]any{}, 200)
	if _, err := os.Stat(copy2); !os.IsNotExist(err) {
		t.Errorf("the deleted copy is still there: %v", err)
	}
	for _, p := range []string{origPath, copy1} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("deleting a copy removed %s", filepath.Base(p))
		}
	}
	if p := r.json("GET", "/api/sessions/"+forkID, nil, 200)["session"].(map[string]any)["parentSessionPath"]; p != origPath {
		t.Errorf("deleting a copy re-pointed the original's fork to %v", p)
	}
}

// TestDeletedOutside: a session file deleted or moved away by another
// program is reported as missing (not as moved to the trash), and as
// rewritten (so the page reloads it) when it is back (issue 14.4).
func TestDeletedOutside(t *testing.T) {
	r := newRig(t, Options{})
	s := r.find("Dark theme")
	path := s["path"].(string)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, _ := sseClient(ctx, t, r.ts.URL+"/api/sessions/"+s["id"].(string)+"/events", "")
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
