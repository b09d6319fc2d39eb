package push_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/push"
	"piweb/internal/push/pushtest"
)

func TestPushDelivered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "piweb")
	s, err := push.Open(dir, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	sub := pushtest.NewSubscriber(t)
	fake := pushtest.New(t, key, sub)
	if err := s.Subscribe(sub.Subscription(fake.URL + "/push/abc")); err != nil {
		t.Fatal(err)
	}
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
	again, err := push.Open(dir, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := again.PublicKey(); k != key || again.Count() != 1 {
		t.Errorf("reopened: key kept %v, %d subscriptions", k == key, again.Count())
	}
}

func TestPushExpiredAndUnreachable(t *testing.T) {
	var logged strings.Builder
	s, err := push.Open(t.TempDir(), nil, func(f string, a ...any) { fmt.Fprintf(&logged, f+"\n", a...) })
	if err != nil {
		t.Fatal(err)
	}
	key, _ := s.PublicKey()
	sub := pushtest.NewSubscriber(t)
	gone := pushtest.New(t, key, sub)
	gone.Status = http.StatusGone
	missing := pushtest.New(t, key, sub)
	missing.Status = http.StatusNotFound
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // a push service that cannot be reached
	for _, u := range []string{gone.URL + "/a", missing.URL + "/b", down.URL + "/c"} {
		if err := s.Subscribe(sub.Subscription(u)); err != nil {
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
	if err := s.Subscribe(push.Subscription{Endpoint: "file:///etc/passwd"}); !errors.Is(err, push.ErrBadSubscription) {
		t.Errorf("bad subscription: %v", err)
	}
}
