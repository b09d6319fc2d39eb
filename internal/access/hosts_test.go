package access

import (
	"os"
	"strings"
	"testing"
)

func TestAllows(t *testing.T) {
	name, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	name = strings.ToLower(name)
	for _, c := range []struct {
		addr  string
		extra []string
		host  string
		want  bool
	}{
		{"127.0.0.1:8080", nil, "127.0.0.1:8080", true},
		{"127.0.0.1:8080", nil, "localhost", true},
		{"127.0.0.1:8080", nil, "app.localhost:8080", true},
		{"127.0.0.1:8080", nil, "[::1]:8080", true},
		{"127.0.0.1:8080", nil, "127.9.9.9", true},
		{"127.0.0.1:8080", nil, "evil.example", false},
		{"127.0.0.1:8080", nil, "", false},
		{"127.0.0.1:8080", nil, name, false}, // loopback only: not the machine's name
		{"127.0.0.1:8080", []string{"piweb.example", "[fd00::1]:8080"}, "PIWEB.example:443", true},
		{"127.0.0.1:8080", []string{"piweb.example", "[fd00::1]:8080"}, "[fd00::1]:1", true},
		{"127.0.0.1:8080", []string{"piweb.example"}, "example", false},
		{"192.0.2.10:8080", nil, "192.0.2.10:8080", true},
		{"192.0.2.10:8080", nil, name, true},
		{"192.0.2.10:8080", nil, "192.0.2.11", false},
		{"0.0.0.0:8080", nil, name, true},
		{":8080", nil, "evil.example:8080", false},
	} {
		if got := HostsFor(c.addr, c.extra).Allows(c.host); got != c.want {
			t.Errorf("listening on %s (extra %v): Host %q allowed %v, want %v", c.addr, c.extra, c.host, got, c.want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:1": true, "[::1]:1": true, "localhost:1": true,
		"0.0.0.0:1": false, ":1": false, "192.168.1.2:1": false, "127.0.0.1": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}
