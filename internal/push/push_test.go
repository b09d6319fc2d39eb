package push_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"piweb/internal/push"
	"piweb/internal/push/pushtest"
	"piweb/internal/testkit"
)

// open opens the push service kept in dir with o; an error stops the test.
func open(t *testing.T, dir string, o push.Options) *push.Service {
	t.Helper()
	s, err := push.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPushDelivered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "piweb")
	s := open(t, dir, push.Options{Log: testkit.Log(t), AllowLocal: true})
	fake := pushtest.Subscribed(t, s, "/push/abc")
	key, _ := s.PublicKey()
	want := push.Message{Title: "pi finished", Body: "fix the parser", URL: "/s/123", Tag: "piweb-123"}
	s.Send(t.Context(), want)
	if got := fake.Messages(t); len(got) != 1 || got[0] != want {
		t.Errorf("received %+v, want %+v", got, want)
	}
	// Keys and subscriptions are the user's alone and survive a restart.
	for p, mode := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "vapid.json"): 0o600, filepath.Join(dir, "push-subscriptions.json"): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v, want %v (%v)", p, fi.Mode(), mode, err)
		}
	}
	again := open(t, dir, push.Options{Log: testkit.Log(t), AllowLocal: true})
	if k, _ := again.PublicKey(); k != key || again.Count() != 1 {
		t.Errorf("reopened: key kept %v, %d subscriptions", k == key, again.Count())
	}
}

func TestPushExpiredAndUnreachable(t *testing.T) {
	var logged strings.Builder
	s := open(t, t.TempDir(), push.Options{Log: slog.New(slog.NewTextHandler(&logged, nil)), AllowLocal: true})
	key, _ := s.PublicKey()
	sub := pushtest.NewSubscriber(t)
	gone := pushtest.New(t, key, sub)
	gone.Status = http.StatusGone
	missing := pushtest.New(t, key, sub)
	missing.Status = http.StatusNotFound
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // a push service that cannot be reached
	for _, u := range []string{gone.URL + "/a", missing.URL + "/b", down.URL + "/c"} {
		if err := s.Subscribe(t.Context(), sub.Subscription(u)); err != nil {
			t.Fatal(err)
		}
	}
	s.Send(t.Context(), push.Message{Title: "x"})
	if n := s.Count(); n != 1 {
		t.Errorf("%d subscriptions left, want only the unreachable one", n)
	}
	if !strings.Contains(logged.String(), "unreachable") {
		t.Errorf("log: %q", logged.String())
	}
	if err := s.Subscribe(t.Context(), push.Subscription{Endpoint: "file:///etc/passwd"}); !errors.Is(err, push.ErrBadSubscription) {
		t.Errorf("bad subscription: %v", err)
	}
}

// TestPushPublicOnly is issue 21.5: an endpoint is where piweb POSTs on
// every attention event, so only https on a public host is accepted: IP
// literals and names resolving to loopback, private, link-local or
// multicast addresses are refused. Before, any http(s) URL was.
func TestPushPublicOnly(t *testing.T) {
	dns := map[string][]netip.Addr{
		"push.example":   {netip.MustParseAddr("93.184.216.34")},
		"mixed.example":  {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")},
		"lan.example":    {netip.MustParseAddr("192.168.1.10")},
		"mapped.example": {netip.MustParseAddr("::ffff:127.0.0.1")},
		"cgnat.example":  {netip.MustParseAddr("100.64.1.1")},
		"ula.example":    {netip.MustParseAddr("fd00::1")},
	}
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if ips, ok := dns[host]; ok {
			return ips, nil
		}
		return nil, errors.New("no such host")
	}
	s := open(t, t.TempDir(), push.Options{Log: testkit.Log(t), LookupIP: lookup})
	sub := pushtest.NewSubscriber(t)
	for _, c := range []struct {
		endpoint string
		ok       bool
	}{
		{"https://push.example/send/abc", true},
		{"http://push.example/send/abc", false},
		{"https://127.0.0.1/x", false},
		{"https://[::1]:8443/x", false},
		{"https://10.0.0.1/x", false},
		{"https://169.254.169.254/latest", false},
		{"https://93.184.216.34/x", false}, // an IP literal, even public
		{"https://mixed.example/x", false},
		{"https://lan.example/x", false},
		{"https://mapped.example/x", false},
		{"https://cgnat.example/x", false},
		{"https://ula.example/x", false},
		{"https://unknown.example/x", false},
		{"file:///etc/passwd", false},
	} {
		err := s.Subscribe(t.Context(), sub.Subscription(c.endpoint))
		if ok := err == nil; ok != c.ok {
			t.Errorf("%s: accepted %v, want %v (%v)", c.endpoint, ok, c.ok, err)
		} else if !c.ok && !errors.Is(err, push.ErrBadSubscription) {
			t.Errorf("%s: %v", c.endpoint, err)
		}
	}
}

// TestPushRebindingRefused: a name that resolved to a public address when
// the browser subscribed but points at a local one when piweb pushes (DNS
// rebinding) is refused as piweb connects, and nothing is sent there.
func TestPushRebindingRefused(t *testing.T) {
	var logged strings.Builder
	public := func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	s := open(t, t.TempDir(), push.Options{LookupIP: public,
		Log: slog.New(slog.NewTextHandler(&logged, nil))})
	s.PublicKey()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	// localhost resolves to the loopback address when piweb connects.
	sub := pushtest.NewSubscriber(t)
	if err := s.Subscribe(t.Context(), sub.Subscription("https://localhost:"+port+"/push/abc")); err != nil {
		t.Fatal(err)
	}
	s.Send(t.Context(), push.Message{Title: "x"})
	if n := conns.Load(); n != 0 {
		t.Errorf("piweb connected to the loopback address %d times", n)
	}
	if !strings.Contains(logged.String(), "not a public address") {
		t.Errorf("log: %q", logged.String())
	}
}
