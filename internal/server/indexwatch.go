package server

import (
	"context"
	"runtime"

	"piweb/internal/index"
)

// WatchIndex runs ix.Watch until ctx ends, on an OS thread of its own at a
// low CPU priority where the platform allows it. Indexing a big file is
// seconds of CPU in this process; at normal priority it competes with the
// request handlers for the machine's cores, and on two cores requests
// then wait behind it. The watcher does its updates on the calling
// goroutine, so locking it to a thread and lowering that thread's
// priority lets the OS run the handlers first.
func WatchIndex(ctx context.Context, ix *index.Index) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, whose priority an unprivileged
		// process cannot raise again, ends with this goroutine.
		runtime.LockOSThread()
		lowerThreadPriority()
		errc <- ix.Watch(ctx)
	}()
	return <-errc
}
