package peercred

import (
	"context"
	"net"
	"os"
	"sync"
)

// A connection's verdict is found at most once, lazily on its first
// request (not in the accept loop), and kept on the connection through its
// context: ConnContext is the http.Server's ConnContext, OtherUser asks a
// request's context.

// connKey is the context key of a connection's *conn.
type connKey struct{}

// conn is one accepted connection and the verdict on its client's user.
type conn struct {
	local, remote net.Addr
	once          sync.Once
	own           bool // the client socket belongs to this process's effective uid
}

// ConnContext returns ctx carrying c's addresses for OtherUser.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, &conn{local: c.LocalAddr(), remote: c.RemoteAddr()})
}

// OtherUser reports a request (by its context) that came over a loopback
// TCP connection whose client belongs to another OS user than this
// process's, or whose owner cannot be told (always so where Supported is
// false). Contexts without a connection from ConnContext, and remote
// clients, are not reported.
func OtherUser(ctx context.Context) bool {
	p, _ := ctx.Value(connKey{}).(*conn)
	if p == nil {
		return false
	}
	if a, isTCP := p.remote.(*net.TCPAddr); !isTCP || !a.IP.IsLoopback() {
		return false
	}
	p.once.Do(func() { p.own = Owns(p.local, p.remote, os.Geteuid()) })
	return !p.own
}
