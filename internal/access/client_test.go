package access

import (
	"strings"
	"testing"
)

func TestClientKey(t *testing.T) {
	proxies := []string{"10.0.0.1", "::1"}
	for _, c := range []struct {
		name, remote string
		fwd          []string
		want         string
	}{
		{"ipv4", "192.0.2.7:5000", nil, "192.0.2.7"},
		{"ipv6 by its /64", "[2001:db8:1:2:3:4:5:6]:5000", nil, "2001:db8:1:2::/64"},
		{"no port", "192.0.2.7", nil, "192.0.2.7"},
		{"not an address", "pipe", nil, "pipe"},
		{"header from a client is ignored", "192.0.2.7:5000", []string{"198.51.100.9"}, "192.0.2.7"},
		{"a proxy's last address", "10.0.0.1:5000", []string{"1.1.1.1", "203.0.113.5, 198.51.100.9"}, "198.51.100.9"},
		{"a proxy on ipv6 loopback", "[::1]:5000", []string{"2001:db8::1"}, "2001:db8::/64"},
		{"a proxy without the header", "10.0.0.1:5000", nil, "10.0.0.1"},
		{"a proxy with garbage", "10.0.0.1:5000", []string{"nonsense"}, "10.0.0.1"},
	} {
		if got := ClientKey(c.remote, c.fwd, proxies); got != c.want {
			t.Errorf("%s: ClientKey = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCookieName(t *testing.T) {
	for addr, want := range map[string]string{"127.0.0.1:30141": "piweb_30141", "[::1]:8080": "piweb_8080", ":9000": "piweb_9000"} {
		if got := CookieName(addr); got != want {
			t.Errorf("CookieName(%q) = %q, want %q", addr, got, want)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "", "nonsense"} {
		a, b := CookieName(addr), CookieName(addr)
		if !strings.HasPrefix(a, "piweb_") || len(a) != len("piweb_")+8 || a == b {
			t.Errorf("CookieName(%q) = %q then %q, want random names", addr, a, b)
		}
	}
}
