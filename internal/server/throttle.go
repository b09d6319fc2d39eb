package server

import (
	"net"
	"net/http"
	"strings"
)

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
