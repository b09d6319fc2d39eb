package access

import (
	"net"
	"os"
	"testing"
)

// TestPeerLookups: sock_diag and the /proc/net tables both find the
// client socket of a loopback connection, IPv4, IPv6 and IPv4 through a
// dual-stack listener, and its owner; a socket that does not exist is not
// found.
func TestPeerLookups(t *testing.T) {
	for _, l := range []struct{ network, listen, dial string }{
		{"tcp4", "127.0.0.1:0", "127.0.0.1"}, {"tcp6", "[::1]:0", "::1"}, {"tcp", ":0", "127.0.0.1"}} {
		srv := acceptedConn(t, l.network, l.listen, l.dial)
		client, server := srv.RemoteAddr().(*net.TCPAddr), srv.LocalAddr().(*net.TCPAddr)
		if uid, found, err := diagOwner(client, server); err != nil || !found || uid != os.Geteuid() {
			t.Errorf("%s: sock_diag: uid %d found %v err %v", l.listen, uid, found, err)
		}
		found := false
		for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			if uid, ok := socketOwner(table, client, server); ok {
				found = uid == os.Geteuid()
			}
		}
		if !found {
			t.Errorf("%s: not found in /proc/net", l.listen)
		}
		gone := &net.TCPAddr{IP: client.IP, Port: 1}
		if _, found, err := diagOwner(gone, server); err != nil || found {
			t.Errorf("%s: a socket that does not exist: found %v err %v", l.listen, found, err)
		}
	}
}
