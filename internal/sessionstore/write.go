package sessionstore

import (
	"fmt"
	"time"

	"piweb/internal/durable"
	"piweb/pisession"
)

// Everything piweb writes into a session file goes through this file: one
// O_APPEND write per line for new entries, and temp file, fsync, rename with
// a backup for the rare whole-file rewrite. Nothing is ever truncated.

// ErrChanged is returned when the file changed on disk since it was read,
// so the leaf the caller saw may no longer be pi's leaf (pisession's).
var ErrChanged = pisession.ErrChanged

// appendNew adds the line that line makes (after migrating a file still on
// an older version, as pi would on open) after pi's leaf (the last entry)
// of the file at path, which s must be the current parse of, and returns
// the new entry. The file is opened O_APPEND and the line written in one
// write; a file whose last line lacks its newline gets one first, so a
// torn line is kept apart instead of merged.
func appendNew(path string, s *pisession.Session, line func() []byte) (*pisession.Entry, error) {
	if s.Header == nil {
		return nil, pisession.ErrNoHeader
	}
	if s.Migrated {
		if _, err := Migrate(path, s); err != nil {
			return nil, err
		}
	}
	return pisession.Append(path, s, line())
}

// AppendLabel sets (or with an empty label clears) the label of an entry,
// like pi's appendLabelChange. A clear is written without the label key.
func AppendLabel(path string, s *pisession.Session, targetID, label string) (*pisession.Entry, error) {
	if s.ByID(targetID) == nil {
		return nil, fmt.Errorf("%w: %s", pisession.ErrNotFound, targetID)
	}
	return appendNew(path, s, func() []byte { return s.LabelLine(targetID, label) })
}

// AppendName names the session as pi 1.6's appendSessionInfo does: runs
// of CR and LF become one space, then the name is trimmed; an empty name
// clears it.
func AppendName(path string, s *pisession.Session, name string) (*pisession.Entry, error) {
	return appendNew(path, s, func() []byte { return s.NameLine(name) })
}

// Migrate rewrites a file that was read from an older version in its
// migrated form, as pi does when it opens it, and re-reads it into s. It
// returns the backup path.
func Migrate(path string, s *pisession.Session) (string, error) {
	data := s.Encode()
	backup, err := RewriteFile(path, data, s.Size)
	if err != nil {
		return "", err
	}
	*s = *pisession.Parse(data)
	return backup, nil
}

// BackupPath names the backup of a session file. The name does not end in
// .jsonl, so neither pi nor piweb lists it as a session.
func BackupPath(path string, t time.Time) string {
	return path + ".piweb-backup-" + t.UTC().Format("20060102T150405.000000000Z")
}

// NewFile writes the content of a new session into dir under pi's file name
// (taken from its header) and returns the path (pisession.Create).
func NewFile(dir string, content []byte) (string, error) { return pisession.Create(dir, content) }

// CreateFile writes a new file at path, which must not exist, atomically:
// the file appears whole or not at all (durable.Create).
func CreateFile(path string, data []byte) error { return durable.Create(path, data) }

// RepairFile rewrites the file at path, which s was read from, with Repair's
// content, through RewriteFile (refused with ErrChanged if the file grew
// since s was read), when s has defects or was migrated. It returns
// Repair's changes and the backup's path; none and "" when nothing needed
// repair.
func RepairFile(path string, s *pisession.Session, cwd string) (changes []string, backup string, err error) {
	if len(s.Defects()) == 0 && !s.Migrated {
		return nil, "", nil
	}
	content, changes := s.Repair(cwd)
	if backup, err = RewriteFile(path, content, s.Size); err != nil {
		return nil, "", err
	}
	return changes, backup, nil
}
