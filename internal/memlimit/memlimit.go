// Package memlimit is the Go runtime's soft memory limit of a piweb
// process (issue 21 item 11), in one place for the process and for the
// benchmarks that measure what serve holds.
package memlimit

import (
	"runtime/debug"
	"sync"
)

// Soft is the Go runtime's soft memory limit in a piweb process
// unless GOMEMLIMIT sets one (issue 21 item 11: at most 300 MB whatever
// the corpus). At GOGC 100 alone the heap grows to twice what is live
// before a collection, and the runtime keeps what it freed up to its
// limit: at 100,000 sessions a cold open peaked at 596 MB of RSS with no
// limit, 319 MB under 256 MiB (its live heap 70-110 MB, SQLite's page
// caches beside it), 271 MB under 192 MiB for the same CPU time (decisions
// 0036, 0045). It is soft: a live heap above it is collected more often,
// not refused; and it rises by what the parse cache holds (Hold).
const Soft = 192 << 20

// Set sets Soft unless GOMEMLIMIT is set (the runtime read that at
// start); it returns the limit it set, or -1.
func Set(getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return -1
	}
	mu.Lock()
	defer mu.Unlock()
	ours = true
	debug.SetMemoryLimit(Soft + held)
	return Soft + held
}

// The limit is the runtime's, one per process: so is what Set and Hold
// keep of it.
var (
	mu   sync.Mutex
	ours bool  // Set set the limit (GOMEMLIMIT did not)
	held int64 // what the session cache holds, by Hold
)

// Hold says how many bytes the session cache holds within its own budget
// (sessionstore.Cache.OnHeld): the limit is Soft plus that, so that a huge
// session's parse the cache is allowed to keep is not collected against a
// limit meant for the rest of serve (the catalog, the index), which would
// have the collector run all the time (Go caps it at half the CPU). It
// changes nothing when GOMEMLIMIT set the limit or Set was not called.
func Hold(n int64) {
	mu.Lock()
	defer mu.Unlock()
	held = max(n, 0)
	if ours {
		debug.SetMemoryLimit(Soft + held)
	}
}
