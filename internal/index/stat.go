package index

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileID is what identifies a version of a file on disk cheaply: a change
// of any field means the file must be looked at again.
type fileID struct {
	dev, ino uint64
	size     int64
	mtimeNs  int64
	regular  bool
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

// statAt stats name in the folder open as dirfd, following symbolic links
// as os.Stat does; ok is false when it cannot. It allocates nothing: a
// warm ls makes a call per session file, and the system calls are most of
// its time.
func statAt(dirfd int, name string) (fileID, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, 0); err != nil {
		return fileID{}, false
	}
	return fileID{
		dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size,
		mtimeNs: unix.TimespecToNsec(st.Mtim), regular: st.Mode&unix.S_IFMT == unix.S_IFREG,
	}, true
}
