package access

import (
	"net"
	"os"
	"strings"
)

// Hosts is the set of lower-case names besides loopback under which a
// server may be reached. It is read-only once made.
type Hosts map[string]struct{}

// HostsFor lists the names of a server listening on addr, with extra names
// (a port on one is ignored).
func HostsFor(addr string, extra []string) Hosts {
	hosts := Hosts{}
	add := func(h string) { hosts[strings.ToLower(strings.Trim(h, "[]"))] = struct{}{} }
	for _, h := range extra {
		if name, _, err := net.SplitHostPort(h); err == nil {
			h = name // a port is not part of the name
		}
		add(h)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		add(host)
	}
	if ip == nil || !ip.IsLoopback() {
		if name, err := os.Hostname(); err == nil {
			add(name)
		}
	}
	if host == "" || (ip != nil && ip.IsUnspecified()) {
		addrs, _ := net.InterfaceAddrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				add(n.IP.String())
			}
		}
	}
	return hosts
}

// Allows accepts a Host header's value (with or without a port): loopback
// names and addresses, and the names of a.
func (a Hosts) Allows(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	_, ok := a[host]
	return ok
}

// IsLoopback reports whether a listen address only accepts local clients.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
