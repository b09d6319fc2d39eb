package access

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"strconv"
)

// PeerSupported reports whether this platform can tell which user owns the
// client end of a loopback connection: on Linux when /proc/net/tcp can be
// read.
func PeerSupported() bool {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// Owns reports whether the client end of the connection local<-remote
// belongs to uid. The kernel is asked for that one socket (sock_diag over
// netlink, a hash lookup by both ends' address and port); where that is
// not available the client's line is looked up in /proc/net/tcp (or tcp6),
// whose local address is our remote one and whose remote address is our
// local one (a scan as long as the machine's socket count). No socket (the
// client is gone, or lives in another network namespace) is not ownership.
func Owns(local, remote net.Addr, uid int) bool {
	l, ok1 := local.(*net.TCPAddr)
	r, ok2 := remote.(*net.TCPAddr)
	if !ok1 || !ok2 {
		return false
	}
	if owner, found, err := diagOwner(r, l); err == nil {
		return found && owner == uid
	}
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if owner, found := socketOwner(name, r, l); found {
			return owner == uid
		}
	}
	return false
}

// socketOwner finds the socket from local to remote in a /proc/net/tcp
// style table and returns its uid.
func socketOwner(table string, local, remote *net.TCPAddr) (uid int, found bool) {
	f, err := os.Open(table)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 512), 4096)
	sc.Scan() // the column titles
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		fs := bytes.Fields(sc.Bytes())
		if len(fs) < 8 || !sameEndpoint(fs[1], local) || !sameEndpoint(fs[2], remote) {
			continue
		}
		n, err := strconv.Atoi(string(fs[7]))
		return n, err == nil
	}
	return 0, false
}

// sameEndpoint compares a table's "ADDR:PORT" (hex; the address as 32-bit
// words in the kernel's byte order) with a TCP address. IPv4 addresses
// match their IPv4-mapped IPv6 form, as a dual-stack listener sees them.
func sameEndpoint(field []byte, a *net.TCPAddr) bool {
	i := bytes.IndexByte(field, ':')
	if i < 0 {
		return false
	}
	port, err := strconv.ParseUint(string(field[i+1:]), 16, 16)
	if err != nil || int(port) != a.Port {
		return false
	}
	raw, err := hex.DecodeString(string(field[:i]))
	if err != nil || len(raw)%4 != 0 {
		return false
	}
	ip := make(net.IP, len(raw))
	for w := 0; w < len(raw); w += 4 {
		binary.NativeEndian.PutUint32(ip[w:], binary.BigEndian.Uint32(raw[w:]))
	}
	return ip.Equal(a.IP)
}
