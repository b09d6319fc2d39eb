package access

import (
	"context"
	"net"
	"testing"
)

// TestOtherUserOwn: a loopback connection this process made is its own
// user's, asked once per connection.
func TestOtherUserOwn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	ctx := ConnContext(context.Background(), server)
	for range 2 {
		if OtherUser(ctx) {
			t.Fatal("this process's own loopback connection is reported as another user's")
		}
	}
}
