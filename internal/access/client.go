package access

import (
	"encoding/hex"
	"net"
	"slices"
	"strings"
)

// ClientKey is the key a client is throttled by: its address (remote, as
// http.Request.RemoteAddr has it), an IPv6 one by its /64, which one host
// owns. When remote is one of proxies, the reverse proxies in front of
// piweb (and only then: anyone can send the header), the client is the
// last address of the last X-Forwarded-For value (forwarded, the header's
// values in order): the one that proxy saw; earlier ones the client wrote.
func ClientKey(remote string, forwarded, proxies []string) string {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	if ip != nil && slices.ContainsFunc(proxies, func(p string) bool { return ip.Equal(net.ParseIP(p)) }) {
		if fwd := lastForwarded(forwarded); fwd != nil {
			ip = fwd
		}
	}
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// lastForwarded is the last address of the last X-Forwarded-For value.
func lastForwarded(vs []string) net.IP {
	if len(vs) == 0 {
		return nil
	}
	last := vs[len(vs)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return net.ParseIP(strings.TrimSpace(last))
}

// CookieName names the session cookie of a server listening on addr
// after its port, since cookies ignore ports and two piwebs on one host
// would otherwise share one; without a fixed port a random name.
func CookieName(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil && port != "" && port != "0" {
		return "piweb_" + port
	}
	return "piweb_" + hex.EncodeToString(RandomBytes(4))
}
