package server

import (
	"errors"
	"net/http"
	"path/filepath"

	"piweb/internal/apitype"
	"piweb/internal/session"
)

// repair rewrites a damaged session file as `piweb check --repair` does:
// atomically, through session.RewriteFile (a synced temp file renamed over
// the original, which is kept as a *.piweb-backup-* hard link), and only
// if nobody wrote to the file since it was read. A busy agent refuses it;
// an idle one is stopped first, since it holds the old file in memory.
func (s *Server) repair(w http.ResponseWriter, r *http.Request) error {
	if err := decodeBody(w, r, &struct{}{}, maxBody); err != nil {
		return err
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	if s.agent.Running(m.Path) {
		return errorf(Busy, "the agent is running in this session; stop it first")
	}
	if err := s.agent.Stop(r.Context(), m.Path); err != nil {
		return wrap(Internal, err, "cannot stop the agent")
	}
	sess, err := session.ReadFile(m.Path)
	if err != nil {
		return storeErr(err)
	}
	res := apitype.RepairResult{Changes: []string{}}
	if len(sess.Defects()) > 0 || sess.Migrated {
		content, changes := sess.Repair(m.Cwd)
		backup, err := session.RewriteFile(m.Path, content, sess.Size)
		if errors.Is(err, session.ErrChanged) {
			return wrap(Stale, err, "the session file changed meanwhile; reload and retry")
		} else if err != nil {
			return wrap(Internal, err, "cannot repair the session file")
		}
		res.Changes, res.Backup = changes, backupName(s.agentDir, backup)
	}
	res.Session = s.itemAfter(m.Path)
	return ok(w, res)
}

// backupName names a backup for the client: its path relative to the
// agent dir when it lies inside, else its file name.
func backupName(agentDir, backup string) string {
	if rel, err := filepath.Rel(agentDir, backup); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(backup)
}
