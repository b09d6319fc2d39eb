package sessionstore

import (
	"bytes"
	"os"
	"path/filepath"
	"piweb/pisession"
	"strings"
)

// SetParent rewrites the header of the session at path so that its
// parentSession is to (removed when to is ""), if it is from now. Every
// other byte of the file is kept: the header's other members keep their
// bytes and order, and the new value is written as JSON.stringify writes
// it. The rewrite is RewriteFile's (temp file, fsync, rename, backup).
func SetParent(path, from, to string) error { return setParent(path, from, to, rewriteHeader) }

// setParent re-points the header of the session at path as SetParent
// says and has write put the new content in place (was: the bytes read).
func setParent(path, from, to string, write func(path string, out []byte, was int64) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := pisession.WithParent(data, from, to)
	if err != nil {
		return err
	}
	return write(path, out, int64(len(data)))
}

// rewriteHeader is SetParent's write: RewriteFile, then the backups of
// earlier re-points pruned.
func rewriteHeader(path string, out []byte, was int64) error {
	backup, err := RewriteFile(path, out, was)
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
	for _, name := range pisession.DirNames(dir) {
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
