package index

import (
	"os"
	"syscall"
)

// fileID is what identifies a version of a file on disk cheaply: a change
// of any field means the file must be looked at again.
type fileID struct {
	dev, ino   uint64
	size       int64
	mtimeNs    int64
	regular    bool
	statFailed bool
}

func idOf(fi os.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtimeNs: fi.ModTime().UnixNano(), regular: fi.Mode().IsRegular()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	return id
}

// sameFile reports whether a and b are the same inode.
func (a fileID) sameFile(b fileID) bool { return a.dev == b.dev && a.ino == b.ino }

// unchanged reports whether nothing about the file changed.
func (a fileID) unchanged(b fileID) bool {
	return a.sameFile(b) && a.size == b.size && a.mtimeNs == b.mtimeNs
}
