package index

import (
	"bytes"
	"io"
	"runtime/debug"
	"sync"
)

// The indexer's memory is bounded by design (issue 21), whatever the
// files: the listing pass reads through a small pooled buffer and the
// text pass in parts of textPart, a line longer than those is read into
// a buffer of its exact size (never grown by doubling), and what the
// workers hold of the files at once (the parts read and not yet written,
// the long lines) is bounded by a byte budget: a worker that would go
// beyond it waits for the writer to apply what is held. A line bigger
// than the whole budget is read alone.

// readBudget is the default of Index.budget: the bytes of files the
// workers may hold at once.
const readBudget = 64 << 20

// budget is a weighted semaphore over bytes.
type budget struct {
	mu         sync.Mutex
	cond       sync.Cond
	total, use int64
}

func newBudget(total int64) *budget {
	b := &budget{total: total}
	b.cond.L = &b.mu
	return b
}

// acquire takes n bytes (at most the whole budget), waiting while they
// are not free and something else is held, and returns what it took.
// A nil budget takes nothing.
func (b *budget) acquire(n int64) int64 {
	if b == nil {
		return 0
	}
	n = min(n, b.total)
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.use > 0 && b.use+n > b.total {
		b.cond.Wait()
	}
	b.use += n
	return n
}

// release gives back n bytes taken by acquire.
func (b *budget) release(n int64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.use -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// lineEnd returns the offset just past the newline that ends the line
// going on at from, or end when there is none before it, reading the file
// in small pieces: a long line's buffer is then allocated once, of its
// size.
func (ix *Index) lineEnd(f io.ReaderAt, from, end int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for from < end {
		got, err := ix.readInto(f, buf, from, min(end, from+int64(len(buf))))
		if err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(got, '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		from += int64(len(got))
	}
	return end, nil
}

// hugeLine is the size from which a buffer read for one update is given
// back to the OS as soon as the update is applied. Go's collector lets
// the heap grow to twice what was live at its last cycle: after a cycle
// that saw a 52 MB line and its decoded first message (120 MB live), the
// heap grew to 200 MB before the next one, and with SQLite's memory the
// index of that one file peaked at 400 MB of RSS (issue 21: at most 300).
// A collection once such an update is dropped (rare: lines of 16 MB are)
// sets the next goal from what is live after it.
const hugeLine = 16 << 20

// noteHuge records that the update read n bytes at once.
func (u *update) noteHuge(n int64) {
	if n >= hugeLine {
		u.huge = max(u.huge, n)
	}
}

// done drops what an applied (or refused) update holds, and returns the
// memory of a huge one to the OS.
func (u *update) done() {
	if u.huge == 0 {
		return
	}
	*u = update{}
	debug.FreeOSMemory()
}
