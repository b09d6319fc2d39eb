package access

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

// OtherUser reports a request (by its context) whose client is not proven
// to be this process's OS user: the client socket of its TCP connection
// is looked up whatever its source address (Linux delivers a connection to
// 127.0.0.1 from any of the machine's addresses, so a loopback listener
// cannot trust the source), and a client whose owner cannot be found (a
// remote machine, another network namespace, a platform where PeerSupported
// is false, a connection that is not TCP) is another user. Only contexts
// without a connection from ConnContext (handlers called directly, as
// tests do) are not reported.
func OtherUser(ctx context.Context) bool {
	p, _ := ctx.Value(connKey{}).(*conn)
	if p == nil {
		return false
	}
	p.once.Do(func() { p.own = Owns(p.local, p.remote, os.Geteuid()) })
	return !p.own
}
