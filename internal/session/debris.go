package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Debris rules. A temp file (.piweb-tmp-*) older than TempMaxAge is left
// by a crash: piweb writes and renames its temp files within seconds, and
// the age keeps a concurrent piweb's live temp files safe. A backup
// (*.piweb-backup-*, the previous content of a rewritten file, which may
// hold content the user deleted) is removed once it is older than
// BackupMaxAge; the Trash view lists the backups and says so.
const (
	TempMaxAge   = 10 * time.Minute
	BackupMaxAge = 30 * 24 * time.Hour
)

// Backup is one backup file a rewrite left beside a session.
type Backup struct {
	Path    string    `json:"path"`
	Session string    `json:"session"` // the session file it was a backup of
	Time    time.Time `json:"time"`    // when it was made
	Size    int64     `json:"size"`
}

// backupTimeLayout is BackupPath's time format.
const backupTimeLayout = "20060102T150405.000000000Z"

// sessionFolders lists the folders piweb writes session files into: the
// project folders under sessions/ and the trash's item folders.
func (st *Store) sessionFolders() []string {
	var dirs []string
	for _, root := range []string{filepath.Join(st.AgentDir, "sessions"), st.trashDir()} {
		for _, d := range readDir(root) {
			if d.IsDir() {
				dirs = append(dirs, filepath.Join(root, d.Name()))
			}
		}
	}
	return dirs
}

// CleanTemp removes the temp files crashes left (older than TempMaxAge)
// in the session folders and the trash, and returns how many.
func (st *Store) CleanTemp() int {
	n := 0
	for _, dir := range st.sessionFolders() {
		for _, name := range readNames(dir) {
			if !strings.HasPrefix(name, ".piweb-tmp-") {
				continue
			}
			p := filepath.Join(dir, name)
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && st.now().Sub(fi.ModTime()) > TempMaxAge {
				if os.Remove(p) == nil {
					n++
				}
			}
		}
	}
	return n
}

// Backups lists the backup files beside the session files, newest first.
func (st *Store) Backups() []Backup {
	var out []Backup
	for _, dir := range st.sessionFolders() {
		for _, name := range readNames(dir) {
			i := strings.Index(name, ".piweb-backup-")
			if i < 0 {
				continue
			}
			t, err := time.Parse(backupTimeLayout, name[i+len(".piweb-backup-"):])
			fi, serr := os.Lstat(filepath.Join(dir, name))
			if err != nil || serr != nil || !fi.Mode().IsRegular() {
				continue
			}
			out = append(out, Backup{Path: filepath.Join(dir, name), Session: filepath.Join(dir, name[:i]),
				Time: t, Size: fi.Size()})
		}
	}
	slices.SortFunc(out, func(a, b Backup) int { return b.Time.Compare(a.Time) })
	return out
}

// PruneBackups removes the backups older than BackupMaxAge and returns how
// many.
func (st *Store) PruneBackups() int {
	n := 0
	for _, b := range st.Backups() {
		if st.now().Sub(b.Time) > BackupMaxAge && os.Remove(b.Path) == nil {
			n++
		}
	}
	return n
}

// Tidy is what piweb runs at start: Recover, CleanTemp and PruneBackups.
func (st *Store) Tidy() {
	st.Recover()
	st.CleanTemp()
	st.PruneBackups()
}
