package testkit

import (
	"os"
	"syscall"
	"testing"
)

// OtherFS returns a folder on another file system than dir (tmpfs under
// /dev/shm), removed when t ends, or skips t when there is none: a
// rename across file systems fails, and what copies instead needs two.
func OtherFS(t *testing.T, dir string) string {
	t.Helper()
	other, err := os.MkdirTemp("/dev/shm", "piweb-otherfs-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	var a, b syscall.Stat_t
	if syscall.Stat(other, &a) != nil || syscall.Stat(dir, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is on the same file system as " + dir)
	}
	return other
}
