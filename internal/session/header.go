package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"piweb/internal/errs"
	"piweb/internal/jsjson"
)

// ErrParentChanged is returned by SetParent when the header no longer
// names the parent the caller expected.
var ErrParentChanged = errs.New(errs.Stale, "the session file changed meanwhile; reload and retry", "the session's parentSession changed")

// SetParent rewrites the header of the session at path so that its
// parentSession is to (removed when to is ""), if it is from now. Every
// other byte of the file is kept: the header's other members keep their
// bytes and order, and the new value is written as JSON.stringify writes
// it. The rewrite is RewriteFile's (temp file, fsync, rename, backup).
func SetParent(path, from, to string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := withParent(data, from, to)
	if err != nil {
		return err
	}
	backup, err := RewriteFile(path, out, int64(len(data)))
	if err == nil {
		pruneHeaderBackups(path, backup)
	}
	return err
}

// pruneHeaderBackups removes the backups of the session at path, other than
// keep, that differ from it only in their first line (earlier header
// re-points) and hold no byte the live file lacks, so that re-pointing a
// fork again and again keeps one backup of it, not one per rewrite.
func pruneHeaderBackups(path, keep string) {
	live, err := os.ReadFile(path)
	if err != nil {
		return
	}
	_, liveBody, _ := bytes.Cut(live, []byte("\n"))
	dir, base := filepath.Split(path)
	for _, name := range readNames(dir) {
		b := filepath.Join(dir, name)
		if b == keep || !strings.HasPrefix(name, base+".piweb-backup-") {
			continue
		}
		data, err := os.ReadFile(b)
		off, ok := carriedOffset(b)
		if err != nil || !ok || off != int64(len(data)) {
			continue // unreadable, or bytes a late writer put there
		}
		if _, body, _ := bytes.Cut(data, []byte("\n")); !bytes.HasPrefix(liveBody, body) {
			continue // another rewrite's backup (repair, migration)
		}
		if fi, err := os.Stat(b); err == nil {
			if open, _ := openByAnyone(fi); !open {
				os.Remove(b)
			}
		}
	}
}

// withParent is a session file's bytes with its header's parentSession
// changed from from to to.
func withParent(data []byte, from, to string) ([]byte, error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		nl = len(data)
	}
	line := bytes.TrimRight(data[:nl], "\r")
	if !jsjson.Valid(line) || jsjson.SkipSpace(line, 0) >= len(line) || line[jsjson.SkipSpace(line, 0)] != '{' {
		return nil, ErrNoHeader
	}
	cur, _ := jsjson.DecodeString(jsjson.Field(line, "parentSession"))
	if cur != from {
		return nil, ErrParentChanged
	}
	var val []byte
	if to != "" {
		val = jsjson.AppendString(nil, to)
	}
	return append(setMember(line, "parentSession", val), data[len(line):]...), nil
}
