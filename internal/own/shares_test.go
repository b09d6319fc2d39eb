package own

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// TestShares: a link is found by its hash until it expires, survives a
// reopening in a private file that holds no token, is gone at once when
// revoked, and expired links are dropped on the next change.
func TestShares(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "piweb")
	now := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	s, err := OpenShares(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := func(id, hash string, d time.Duration) ShareLink {
		return ShareLink{Share: apitype.Share{ID: id, Session: "s1", Created: now, Expires: now.Add(d)}, Hash: hash}
	}
	for _, l := range []ShareLink{link("a", "ha", time.Hour), link("b", "hb", 2*time.Hour)} {
		if err := s.Add(l, now); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "shares.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("shares.json: %v %v", fi, err)
	}
	again, err := OpenShares(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sh, ok := again.Lookup("ha", now.Add(time.Minute)); !ok || sh.ID != "a" {
		t.Errorf("reopened lookup: %+v %v", sh, ok)
	}
	if _, ok := again.Lookup("ha", now.Add(time.Hour)); ok {
		t.Error("an expired link is found")
	}
	if got := again.List(now.Add(90 * time.Minute)); len(got) != 1 || got[0].ID != "b" {
		t.Errorf("list after a's expiry: %+v", got)
	}
	if err := again.Revoke("b", now); err != nil {
		t.Fatal(err)
	}
	if _, ok := again.Lookup("hb", now); ok {
		t.Error("a revoked link is found")
	}
	if err := again.Revoke("b", now); !errs.Is(err, errs.NotFound) {
		t.Errorf("revoking twice: %v", err)
	}
	if err := again.Revoke("a", now.Add(time.Hour)); !errs.Is(err, errs.NotFound) {
		t.Errorf("revoking an expired link: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "shares.json")); string(b) != "{\"links\":{}}" && len(b) > 20 {
		t.Errorf("shares.json keeps what expired or was revoked: %s", b)
	}
}

// TestSharesBound: past the bound of live links a new one is refused.
func TestSharesBound(t *testing.T) {
	s, _ := OpenShares("")
	s.max = 3
	now := time.Now()
	for i := range s.max + 1 {
		l := ShareLink{Share: apitype.Share{ID: "x", Expires: now.Add(time.Hour)}, Hash: string(rune(i + 0x100))}
		err := s.Add(l, now)
		if i < s.max && err != nil || i == s.max && !errs.Is(err, errs.TooLarge) {
			t.Fatalf("link %d: %v", i, err)
		}
	}
}
