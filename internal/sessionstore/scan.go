package sessionstore

import (
	"os"

	"piweb/pisession"
)

// ScanTree reads what a session's detail needs of the file at path a line
// at a time (pisession.ScanTree), keeping its compact tree, not its parse:
// a huge session's parse is held at about 1.3 times its size (issue 24
// item 4), a scan at about a tenth, and nothing of it once answered. ok
// is false when the file needs the parse (which reports what is wrong
// with it, or that it is gone).
func ScanTree(path string) (t *pisession.TreeScan, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	t, ok, err = pisession.ScanTree(f)
	return t, ok && err == nil
}
