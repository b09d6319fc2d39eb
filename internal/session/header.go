package session

import (
	"bytes"
	"os"

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
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		nl = len(data)
	}
	line := bytes.TrimRight(data[:nl], "\r")
	if !jsjson.Valid(line) || jsjson.SkipSpace(line, 0) >= len(line) || line[jsjson.SkipSpace(line, 0)] != '{' {
		return ErrNoHeader
	}
	cur, _ := jsjson.DecodeString(jsjson.Field(line, "parentSession"))
	if cur != from {
		return ErrParentChanged
	}
	var val []byte
	if to != "" {
		val = jsjson.AppendString(nil, to)
	}
	out := append(setMember(line, "parentSession", val), data[len(line):]...)
	_, err = RewriteFile(path, out, int64(len(data)))
	return err
}
