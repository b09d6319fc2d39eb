package access

import (
	"context"
	"net"
	"testing"
)

// fakeConn is a net.Conn with the given addresses.
type fakeConn struct {
	net.Conn
	local, remote net.Addr
}

func (c fakeConn) LocalAddr() net.Addr  { return c.local }
func (c fakeConn) RemoteAddr() net.Addr { return c.remote }

// TestOtherUserCases: only a context without a connection is not
// reported; a client whose socket cannot be found (a remote machine, a
// loopback or non-loopback source with no such connection here) or that is
// not TCP (a Unix socket) is another user.
func TestOtherUserCases(t *testing.T) {
	ctx := context.Background()
	tcp := func(ip string, port int) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }
	for _, c := range []struct {
		name string
		ctx  context.Context
		want bool
	}{
		{"no connection", ctx, false},
		{"remote", ConnContext(ctx, fakeConn{local: tcp("192.0.2.1", 8080), remote: tcp("192.0.2.7", 50000)}), true},
		{"unix", ConnContext(ctx, fakeConn{local: &net.UnixAddr{Name: "/x"}, remote: &net.UnixAddr{Name: "@"}}), true},
		{"loopback listener, LAN source, no such socket", ConnContext(ctx, fakeConn{local: tcp("127.0.0.1", 1), remote: tcp("192.0.2.7", 2)}), true},
		{"::1 listener, ULA source, no such socket", ConnContext(ctx, fakeConn{local: tcp("::1", 1), remote: tcp("fd00::7", 2)}), true},
		{"loopback, no such socket", ConnContext(ctx, fakeConn{local: tcp("127.0.0.1", 1), remote: tcp("127.0.0.1", 2)}), true},
	} {
		if got := OtherUser(c.ctx); got != c.want {
			t.Errorf("%s: OtherUser = %v, want %v", c.name, got, c.want)
		}
	}
}
