package push

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// errNotPublic is a connection to an address that is not public.
var errNotPublic = errors.New("push: not a public address")

// checkEndpoint accepts an https URL whose host is a name resolving to
// public addresses only (any http(s) URL with AllowLocal).
func (s *Service) checkEndpoint(ctx context.Context, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return ErrBadSubscription
	}
	if s.opts.AllowLocal {
		if u.Scheme != "https" && u.Scheme != "http" {
			return ErrBadSubscription
		}
		return nil
	}
	if u.Scheme != "https" {
		return ErrBadSubscription
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return fmt.Errorf("%w (an IP address)", ErrBadSubscription)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ips, err := s.opts.LookupIP(ctx, u.Hostname())
	if err != nil || len(ips) == 0 {
		return fmt.Errorf("%w (%s does not resolve)", ErrBadSubscription, u.Hostname())
	}
	for _, ip := range ips {
		if !public(ip) {
			return fmt.Errorf("%w (%s is %s)", ErrBadSubscription, u.Hostname(), ip)
		}
	}
	return nil
}

// shared is 100.64.0.0/10, carrier-grade NAT's shared space.
var shared = netip.MustParsePrefix("100.64.0.0/10")

// public reports whether ip is a public unicast address.
func public(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsValid() && ip.IsGlobalUnicast() && !ip.IsPrivate() && !shared.Contains(ip) &&
		!ip.IsLoopback() && !ip.IsLinkLocalUnicast() && !ip.IsMulticast() && !ip.IsUnspecified() &&
		ip != netip.AddrFrom4([4]byte{255, 255, 255, 255})
}

// newClient is the client pushes go through: without AllowLocal its
// dialer refuses every connection to an address that is not public, the
// address checked as connected (after DNS, so a rebound name is caught),
// and it uses no proxy (which would be the address checked).
func newClient(allowLocal bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if !allowLocal {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !public(ap.Addr()) {
				return fmt.Errorf("%w: %s", errNotPublic, address)
			}
			return nil
		}
	}
	t := &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2: true, MaxIdleConns: 4, IdleConnTimeout: 90 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: t}
}
