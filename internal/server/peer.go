package server

import (
	"context"
	"net"
	"net/http"
	"os"
	"sync"

	"piweb/internal/peercred"
)

// Loopback is not a boundary: every user of the machine (and every
// container sharing its network namespace) can connect to 127.0.0.1. On
// Linux the kernel's socket tables say which uid owns the client end of a
// loopback connection (internal/peercred), so piweb serves only its own user
// there, without asking that user for anything. Elsewhere PeerCheck is
// false and serve requires sign-in on loopback too (a printed link).
//
// The check runs at most once per connection, lazily on its first request
// (not in the accept loop), and its verdict is kept on the connection.

// peerKey is the context key of a connection's *peer.
type peerKey struct{}

// peer is one accepted connection and the verdict on its client's user.
type peer struct {
	local, remote net.Addr
	once          sync.Once
	own           bool // the client socket belongs to piweb's own uid
}

// connContext is the http.Server's ConnContext: it remembers the
// connection's addresses for the peer check.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, peerKey{}, &peer{local: c.LocalAddr(), remote: c.RemoteAddr()})
}

// peerRefused reports a request that came over a local connection whose
// client belongs to another OS user (or whose owner cannot be told). Such
// a client is treated as remote: refused when no sign-in is set up,
// otherwise it must sign in like any remote client. Requests that did not
// come through Serve (tests' handlers) and remote clients are not peers.
func peerRefused(r *http.Request) bool {
	p, _ := r.Context().Value(peerKey{}).(*peer)
	if p == nil || !localConn(p) {
		return false
	}
	p.once.Do(func() { p.own = peercred.Owns(p.local, p.remote, os.Geteuid()) })
	return !p.own
}

// PeerCheck reports whether this platform can tell which user owns the
// client end of a loopback connection (serve requires sign-in on loopback
// where it cannot).
func PeerCheck() bool { return peercred.Supported() }

// localConn reports a TCP connection from a loopback address: one made on
// this machine (or in its network namespace).
func localConn(p *peer) bool {
	a, ok := p.remote.(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}
