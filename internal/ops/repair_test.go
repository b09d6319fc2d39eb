package ops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/testkit"
)

// TestRepair: a damaged file is rewritten with a backup named relative to
// the agent dir, a sound one is left alone.
func TestRepair(t *testing.T) {
	o, m := newOps(t)
	ctx := context.Background()
	if res, err := o.Repair(ctx, m); err != nil || len(res.Changes) != 0 || res.Backup != "" || res.Session == nil {
		t.Fatalf("a sound file: %+v, %v", res, err)
	}
	testkit.AppendFile(t, m.Path, "not json\n")
	res, err := o.Repair(ctx, m)
	if err != nil || len(res.Changes) == 0 || res.Backup == "" || filepath.IsAbs(res.Backup) {
		t.Fatalf("a damaged file: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(o.Store.AgentDir, res.Backup)); err != nil {
		t.Errorf("the backup %q: %v", res.Backup, err)
	}
	if res, err := o.Repair(ctx, m); err != nil || len(res.Changes) != 0 {
		t.Errorf("repaired again: %+v, %v", res, err)
	}
}

func TestBackupName(t *testing.T) {
	for _, c := range []struct{ dir, backup, want string }{
		{"/a/agent", "/a/agent/sessions/p/x.jsonl.piweb-backup-1", "sessions/p/x.jsonl.piweb-backup-1"},
		{"/a/agent", "/elsewhere/x.jsonl.piweb-backup-1", "x.jsonl.piweb-backup-1"},
		{"/a/agent", "/a/agent-2/x.b", "x.b"},
	} {
		if got := backupName(c.dir, c.backup); got != c.want {
			t.Errorf("backupName(%q, %q) = %q, want %q", c.dir, c.backup, got, c.want)
		}
	}
}

// TestCheckLeaf: the file's own leaf passes; another one, with no pi that
// wrote since, is refused naming the leaf the file has now.
func TestCheckLeaf(t *testing.T) {
	o, m := newOps(t)
	sess, err := o.Cache.Load(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	leaf := sess.Leaf().ID
	if err := o.CheckLeaf(context.Background(), m, leaf); err != nil {
		t.Errorf("the file's leaf: %v", err)
	}
	var le *LeafError
	if err := o.CheckLeaf(context.Background(), m, "older"); !errors.As(err, &le) || le.Have != leaf {
		t.Errorf("another leaf: %v, want a LeafError naming %s", err, leaf)
	}
	gone := m
	gone.Path += ".gone"
	var se *StepError
	if err := o.CheckLeaf(context.Background(), gone, leaf); !errors.As(err, &se) || se.Step != StepLoad {
		t.Errorf("a gone file: %v", err)
	}
}
