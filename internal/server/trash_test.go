package server

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTrashForeverAndBackups: a trashed session can be deleted for good;
// the backups re-pointing left are listed with the pruning rule (issue
// 14.12).
func TestTrashForeverAndBackups(t *testing.T) {
	r := newRig(t, Options{})
	flaky := r.find("Fix the flaky")
	trashID := r.json("DELETE", "/api/sessions/"+flaky["id"].(string), map[string]any{}, 200)["trashId"].(string)
	items := r.json("GET", "/api/trash", nil, 200)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["trashId"] != trashID {
		t.Fatalf("trash %v", items)
	}
	b := r.json("GET", "/api/backups", nil, 200)
	if b["maxAgeDays"] != float64(30) {
		t.Errorf("rule %v", b["maxAgeDays"])
	}
	backups := b["backups"].([]any)
	if len(backups) != 1 { // the fork's header was re-pointed
		t.Fatalf("backups %v", backups)
	}
	if s := backups[0].(map[string]any)["session"].(string); filepath.Dir(s) != filepath.Dir(flaky["path"].(string)) {
		t.Errorf("backup of %s", s)
	}
	r.json("DELETE", "/api/trash/"+trashID, map[string]any{}, 200)
	if items := r.json("GET", "/api/trash", nil, 200)["items"].([]any); len(items) != 0 {
		t.Errorf("trash after delete forever: %v", items)
	}
	if ds, _ := os.ReadDir(filepath.Join(r.d.AgentDir, "trash")); len(ds) != 0 {
		t.Errorf("%d trash folders left", len(ds))
	}
	r.json("DELETE", "/api/trash/"+trashID, map[string]any{}, 404)
	r.json("POST", "/api/trash/"+trashID+"/restore", map[string]any{}, 404)
}
