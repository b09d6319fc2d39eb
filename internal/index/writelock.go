package index

import (
	"context"
	"sync/atomic"
)

// writeLock serialises the index's writers (one connection, one update at
// a time) like a mutex, lets a caller give up waiting when its context
// ends (LockCtx), and tells the holder whether another writer waits
// (Contended), so that a long pass can let it in between transactions.
type writeLock struct {
	c       chan struct{} // holds a token while the lock is held
	waiting atomic.Int32  // writers blocked in Lock or LockCtx
}

func newWriteLock() *writeLock { return &writeLock{c: make(chan struct{}, 1)} }

// Lock waits until the writer is free and takes it.
func (l *writeLock) Lock() { _ = l.LockCtx(context.Background()) }

// Unlock frees the writer; it must be held.
func (l *writeLock) Unlock() { <-l.c }

// LockCtx takes the writer, or returns ctx's error if ctx ends first.
func (l *writeLock) LockCtx(ctx context.Context) error {
	select {
	case l.c <- struct{}{}:
		return nil
	default:
	}
	l.waiting.Add(1)
	defer l.waiting.Add(-1)
	select {
	case l.c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Contended reports whether a writer is waiting for the lock.
func (l *writeLock) Contended() bool { return l.waiting.Load() > 0 }

// Yield lets the writers waiting for the lock, if any, take it in turn
// before the caller, which holds it, has it again.
func (l *writeLock) Yield() {
	if l.Contended() {
		l.Unlock()
		l.Lock()
	}
}
