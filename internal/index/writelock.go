package index

import "context"

// writeLock serialises the index's writers (one connection, one update at
// a time) like a mutex, and lets a caller give up waiting when its
// context ends (LockCtx).
type writeLock chan struct{}

func newWriteLock() writeLock { return make(writeLock, 1) }

// Lock waits until the writer is free and takes it.
func (l writeLock) Lock() { l <- struct{}{} }

// Unlock frees the writer; it must be held.
func (l writeLock) Unlock() { <-l }

// LockCtx takes the writer, or returns ctx's error if ctx ends first.
func (l writeLock) LockCtx(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
