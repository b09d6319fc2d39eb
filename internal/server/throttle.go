package server

import (
	"container/list"
	"net"
	"net/http"
	"strings"
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
// size keyed by client (an IPv6 client by its /64, which one host owns),
// plus a budget for all clients together, so that flooding from many
// addresses (which could push a client out of the LRU) closes the token
// check for everyone for the window instead of opening it.

// throttleSize bounds the clients the throttle remembers.
const throttleSize = 4096

type throttle struct {
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

func newThrottle(limit int, window time.Duration) *throttle {
	return &throttle{limit: limit, global: 100 * limit, window: window, now: time.Now,
		lru: list.New(), byKey: map[string]*list.Element{}}
}

// blocked reports whether the client's tokens are not to be checked now.
func (t *throttle) blocked(key string) bool {
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

// fail counts a wrong token from the client.
func (t *throttle) fail(key string) {
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

// clientKey is the key a request's client is throttled by: its address,
// an IPv6 one by its /64. Behind a reverse proxy named by --proxy (and
// only then: anyone can send the header) the client is the address the
// proxy appended to X-Forwarded-For.
func (s *Server) clientKey(r *http.Request) string {
	ip := net.ParseIP(clientIP(r))
	if ip != nil && s.proxied(ip) {
		if fwd := forwardedFor(r); fwd != nil {
			ip = fwd
		}
	}
	if ip == nil {
		return clientIP(r)
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// proxied reports whether ip is one of the reverse proxies of --proxy.
func (s *Server) proxied(ip net.IP) bool {
	for _, p := range s.opts.Proxies {
		if pip := net.ParseIP(p); pip != nil && pip.Equal(ip) {
			return true
		}
	}
	return false
}

// forwardedFor is the last address of the last X-Forwarded-For header:
// the one the proxy in front of piweb saw (earlier ones the client wrote).
func forwardedFor(r *http.Request) net.IP {
	vs := r.Header.Values("X-Forwarded-For")
	if len(vs) == 0 {
		return nil
	}
	last := vs[len(vs)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return net.ParseIP(strings.TrimSpace(last))
}
