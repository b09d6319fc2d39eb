package ops

import (
	"context"
	"path/filepath"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/errs"
	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// ErrRunning is a repair asked of a session whose pi is running.
var ErrRunning = errs.New(errs.Busy, "the agent is running in this session; stop it first", "the agent is running in this session")

// Repair rewrites a damaged session file as `piweb check --repair` does:
// atomically, through pisession.RewriteFile (a synced temp file renamed over
// the original, which is kept as a *.piweb-backup-* hard link), and only
// if nobody wrote to the file since it was read. A running pi refuses it
// (ErrRunning); an idle one is stopped first, since it holds the old file
// in memory.
func (o *Ops) Repair(ctx context.Context, m catalog.Meta) (apitype.RepairResult, error) {
	res := apitype.RepairResult{Changes: []string{}}
	if o.Agent.Running(m.Path) {
		return res, ErrRunning
	}
	if err := o.Agent.Stop(ctx, m.Path); err != nil {
		return res, fail(StepStop, err)
	}
	sess, err := pisession.ReadFile(m.Path)
	if err != nil {
		return res, fail(StepStore, err)
	}
	changes, backup, err := sessionstore.RepairFile(m.Path, sess, m.Cwd)
	if err != nil {
		return res, fail(StepRepair, err)
	} else if backup != "" {
		res.Changes, res.Backup = changes, backupName(o.Store.AgentDir, backup)
	}
	res.Session = o.ItemAfter(m.Path)
	return res, nil
}

// backupName names a backup for the client: its path relative to the
// agent dir when it lies inside, else its file name.
func backupName(agentDir, backup string) string {
	if rel, err := filepath.Rel(agentDir, backup); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(backup)
}

// LeafError is a command refused because the session's file moved on
// from the leaf the client was looking at: Have is the file's leaf now.
type LeafError struct{ Have string }

// ErrorKind is errs.Stale: the client reloads (errs.Classified).
func (e *LeafError) ErrorKind() errs.Kind { return errs.Stale }

// ClientMessage names the leaf the file has now.
func (e *LeafError) ClientMessage() string { return e.Error() }

func (e *LeafError) Error() string {
	return "the session changed outside this page (leaf is now " + e.Have + ")"
}

// CheckLeaf refuses (*LeafError) a command when the file's leaf is not
// want, the one the client was looking at, and someone else appended to
// the session since. A client behind only by lines its session's pi wrote
// (a model change, the end of a run, on their way to the page) is not
// refused: what it shows is on the chain after the leaf pi loaded, and
// nothing foreign came since.
func (o *Ops) CheckLeaf(ctx context.Context, m catalog.Meta, want string) error {
	sess, err := o.Cache.Load(m.Path)
	if err != nil {
		return fail(StepLoad, err)
	}
	var have string
	if l := sess.Leaf(); l != nil {
		have = l.ID
	}
	if have == want {
		return nil
	}
	base, own, err := o.Agent.OwnSince(ctx, m.Path)
	if err != nil {
		return err
	}
	if !own || !sess.OnChainAfter(want, base) {
		return &LeafError{Have: have}
	}
	return nil
}
