package sessionstore

import (
	"os"
	"path/filepath"
	"piweb/internal/apitype"
	"piweb/pisession"
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

// Backup is one backup file a rewrite left beside a session
// (apitype.Backup, where the API's shapes are defined).
type Backup = apitype.Backup

// backupTimeLayout is BackupPath's time format.
const backupTimeLayout = "20060102T150405.000000000Z"

// sessionFolders lists the folders piweb writes session files into: the
// project folders under sessions/ and the trash's item folders.
func (st *Store) sessionFolders() []string {
	var dirs []string
	for _, root := range []string{filepath.Join(st.AgentDir, "sessions"), st.trashDir()} {
		for _, d := range pisession.DirEntries(root) {
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
		for _, name := range pisession.DirNames(dir) {
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
		for _, name := range pisession.DirNames(dir) {
			i := strings.Index(name, ".piweb-backup-")
			if i < 0 {
				continue
			}
			stamp, _, _ := strings.Cut(name[i+len(".piweb-backup-"):], "+")
			t, err := time.Parse(backupTimeLayout, stamp)
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

// CarryLate copies onto each rewritten session file the lines a writer
// put in its old file (now only its backup) after the rewrite's carry
// ended, or all of them when a crash came between the rename and the
// carry, and returns how many backups it carried from. A backup still
// open in some process, or the same file as its session (the rewrite
// never renamed), is left alone.
func (st *Store) CarryLate() int {
	n := 0
	for _, b := range st.Backups() {
		if carryLate(b) {
			n++
		}
	}
	return n
}

// carryLate carries one backup's late bytes; it reports whether it did.
func carryLate(b Backup) bool {
	off, ok := carriedOffset(b.Path)
	if !ok || b.Size <= off {
		return false
	}
	bst, err := os.Stat(b.Path)
	lst, lerr := os.Stat(b.Session)
	if err != nil || lerr != nil || os.SameFile(bst, lst) {
		return false
	}
	if open, _ := openByAnyone(bst); open {
		return false
	}
	if copyRange(b.Path, b.Session, off, bst.Size()) != nil {
		return false
	}
	_ = os.Rename(b.Path, carriedName(b.Path, bst.Size()))
	return true
}

// Tidy is what piweb runs at start: Recover, CarryLate, CleanTemp and
// PruneBackups.
func (st *Store) Tidy() {
	st.Recover()
	st.CarryLate()
	st.CleanTemp()
	st.PruneBackups()
}
