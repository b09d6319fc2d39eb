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
	ctx, api := t.Context(), r.api()
	flaky := r.item("Fix the flaky")
	del, err := api.Delete(ctx, flaky.ID)
	if err != nil {
		t.Fatal(err)
	}
	trashID := del.TrashID
	trash, err := api.Trash(ctx)
	if err != nil || len(trash.Items) != 1 || trash.Items[0].TrashID != trashID {
		t.Fatalf("trash %v, %v", trash.Items, err)
	}
	b, err := api.Backups(ctx)
	if err != nil || b.MaxAgeDays != 30 {
		t.Errorf("rule %v, %v", b.MaxAgeDays, err)
	}
	if len(b.Backups) != 1 { // the fork's header was re-pointed
		t.Fatalf("backups %v", b.Backups)
	}
	if s := b.Backups[0].Session; filepath.Dir(s) != filepath.Dir(flaky.Path) {
		t.Errorf("backup of %s", s)
	}
	if err := api.DeleteForever(ctx, trashID); err != nil {
		t.Fatal(err)
	}
	if trash, err := api.Trash(ctx); err != nil || len(trash.Items) != 0 {
		t.Errorf("trash after delete forever: %v, %v", trash.Items, err)
	}
	if ds, _ := os.ReadDir(filepath.Join(r.d.AgentDir, "trash")); len(ds) != 0 {
		t.Errorf("%d trash folders left", len(ds))
	}
	wantErr(t, "delete forever twice", api.DeleteForever(ctx, trashID), 404, "")
	_, err = api.Restore(ctx, trashID)
	wantErr(t, "restore after delete forever", err, 404, "")
}
