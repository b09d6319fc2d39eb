package index

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWriteLockGivesUp: a writer waiting with a context gives up when it
// ends, and takes the lock once it is free.
func TestWriteLockGivesUp(t *testing.T) {
	l := newWriteLock()
	l.Lock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.LockCtx(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockCtx on a held lock: %v, want the deadline", err)
	}
	l.Unlock()
	if err := l.LockCtx(context.Background()); err != nil {
		t.Fatalf("LockCtx on a free lock: %v", err)
	}
	l.Unlock()
}
