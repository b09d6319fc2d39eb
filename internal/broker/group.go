package broker

import (
	"sync"
	"time"
)

// Group is the background goroutines of a publisher (a poller of
// followed folders or git states, the live relays), stopped together:
// Close closes Done and waits for every goroutine Go started. The zero
// value is not ready: use NewGroup.
type Group struct {
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// NewGroup returns a running group.
func NewGroup() *Group { return &Group{done: make(chan struct{})} }

// Go runs f in a goroutine that Close waits for.
func (g *Group) Go(f func()) { g.wg.Go(f) }

// Done is closed when Close is called.
func (g *Group) Done() <-chan struct{} { return g.done }

// Tick calls step every every until it returns false or Close is called.
func (g *Group) Tick(every time.Duration, step func() bool) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-g.done:
			return
		case <-t.C:
		}
		if !step() {
			return
		}
	}
}

// Close stops the group and waits for its goroutines.
func (g *Group) Close() {
	g.closeOnce.Do(func() { close(g.done) })
	g.wg.Wait()
}
