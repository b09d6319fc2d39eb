package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairAPI: a torn session is repaired through the API, and the
// answer names the backup relative to the agent dir, never by its full
// path.
func TestRepairAPI(t *testing.T) {
	r := newRig(t, Options{})
	s := r.item("Fix the flaky")
	path := s.Path
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"message","id":"torn`)
	f.Close()
	out, err := r.api().Repair(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	backup := out.Backup
	if backup == "" || filepath.IsAbs(backup) || strings.Contains(backup, r.srv.agentDir) {
		t.Fatalf("backup %q, want a name relative to the agent dir", backup)
	}
	if kept, err := os.ReadFile(filepath.Join(r.srv.agentDir, backup)); err != nil || !strings.HasSuffix(string(kept), `"id":"torn`) {
		t.Errorf("the backup does not hold the original: %v", err)
	}
	if len(out.Changes) == 0 {
		t.Errorf("no changes reported: %+v", out)
	}
}
