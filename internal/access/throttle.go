package access

import (
	"container/list"
	"sync"
	"time"
)

// Sign-in throttling. Only a wrong token counts as a failure (a bearer
// token, or the secret of a login link): a request without credentials
// proves nothing (another site's page can make a browser send many), and a
// cookie is an HMAC nobody guesses (a stale one comes from a restart, not
// from an attacker). Over limit failures in window, a client's token is
// not checked until the window passes.
//
// State is bounded without ever being reset wholesale: an LRU of fixed
// size keyed by client (the server keys an IPv6 client by its /64, which
// one host owns), plus a budget for all clients together, so that flooding
// from many addresses (which could push a client out of the LRU) closes
// the token check for everyone for the window instead of opening it.

// throttleSize bounds the clients a Throttle remembers.
const throttleSize = 4096

// Throttle counts wrong tokens per client. It is safe for concurrent use.
type Throttle struct {
	limit, global int
	window        time.Duration
	now           func() time.Time

	mu      sync.Mutex
	lru     *list.List // of *failures, most recent first
	byKey   map[string]*list.Element
	total   int // failures of all clients in the window since totalAt
	totalAt time.Time
}

type failures struct {
	key   string
	n     int
	start time.Time
}

// NewThrottle blocks a client after limit failures within window (and
// every client after 100 times as many from all of them).
func NewThrottle(limit int, window time.Duration) *Throttle {
	return &Throttle{limit: limit, global: 100 * limit, window: window, now: time.Now,
		lru: list.New(), byKey: map[string]*list.Element{}}
}

// Blocked reports whether the client's tokens are not to be checked now.
func (t *Throttle) Blocked(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if now.Sub(t.totalAt) <= t.window && t.total >= t.global {
		return true
	}
	e := t.byKey[key]
	if e == nil {
		return false
	}
	f := e.Value.(*failures)
	return now.Sub(f.start) <= t.window && f.n >= t.limit
}

// Fail counts a wrong token from the client.
func (t *Throttle) Fail(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if now.Sub(t.totalAt) > t.window {
		t.total, t.totalAt = 0, now
	}
	t.total++
	e := t.byKey[key]
	if e == nil {
		if t.lru.Len() >= throttleSize {
			old := t.lru.Remove(t.lru.Back()).(*failures)
			delete(t.byKey, old.key)
		}
		e = t.lru.PushFront(&failures{key: key, start: now})
		t.byKey[key] = e
	}
	t.lru.MoveToFront(e)
	f := e.Value.(*failures)
	if now.Sub(f.start) > t.window {
		f.n, f.start = 0, now
	}
	f.n++
}

// Reset forgets every failed attempt.
func (t *Throttle) Reset() {
	t.mu.Lock()
	t.lru.Init()
	clear(t.byKey)
	t.total = 0
	t.mu.Unlock()
}
