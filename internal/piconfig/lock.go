package piconfig

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// lockStale is proper-lockfile's default stale age: a lock directory not
// touched for this long belongs to a process that died, and is taken over.
const lockStale = 10 * time.Second

// lockFile takes the lock pi takes on a config file (proper-lockfile: the
// directory "<path>.lock", created with mkdir, which is atomic), retrying
// every 20 ms for up to wait. The returned func removes the directory.
func lockFile(path string, wait time.Duration) (func(), error) {
	dir := path + ".lock"
	deadline := time.Now().Add(wait)
	for {
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return func() { os.Remove(dir) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(dir); serr == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(dir)
			continue
		}
		if time.Now().After(deadline) {
			return nil, ErrLocked
		}
		time.Sleep(20 * time.Millisecond) // waiting on another process's lock; there is no event to wait on
	}
}
