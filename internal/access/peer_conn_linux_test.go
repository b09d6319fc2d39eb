package access

import (
	"context"
	"fmt"
	"net"
	"testing"
)

// TestOtherUserOwn: a loopback connection this process made is its own
// user's, asked once per connection.
func TestOtherUserOwn(t *testing.T) {
	server := acceptedConn(t, "tcp", "127.0.0.1:0", "127.0.0.1")
	ctx := ConnContext(context.Background(), server)
	for range 2 {
		if OtherUser(ctx) {
			t.Fatal("this process's own loopback connection is reported as another user's")
		}
	}
}

// acceptedConn makes a loopback connection to a listener on listen
// (network), dialled at host dial, and returns the listener's side; the
// listener and both sides are closed when t ends.
func acceptedConn(t *testing.T, network, listen, dial string) net.Conn {
	t.Helper()
	ln, err := net.Listen(network, listen)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	c, err := net.Dial("tcp", net.JoinHostPort(dial, fmt.Sprint(port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}
