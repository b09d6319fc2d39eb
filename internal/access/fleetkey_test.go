package access

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadFleetKey: a key file is accepted only as a regular file of this
// user that no one else may read, holding a long enough key; the key
// proves itself to one machine only, without showing itself.
func TestReadFleetKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"0600 with a newline", write("good", "0123456789abcdef0123\n", 0o600), ""},
		{"0400", write("read-only", "0123456789abcdef0123", 0o400), ""},
		{"readable by the group", write("group", "0123456789abcdef0123", 0o640), "chmod 600"},
		{"readable by all", write("all", "0123456789abcdef0123", 0o644), "chmod 600"},
		{"too short", write("short", "abc\n", 0o600), "at least 16"},
		{"empty", write("empty", "", 0o600), "at least 16"},
		{"missing", filepath.Join(dir, "none"), "no such file"},
		{"a folder", dir, "not a regular file"},
	} {
		k, err := ReadFleetKey(c.path)
		switch {
		case c.want == "" && (err != nil || !k.Set()):
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	k, _ := ReadFleetKey(filepath.Join(dir, "good"))
	other := NewFleetKey("0123456789abcdef012")
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	ok := func(key FleetKey, machine, proof string, at time.Time) error {
		_, err := key.CheckProof(machine, proof, at)
		return err
	}
	for _, c := range []struct {
		what  string
		proof string
		at    time.Time
		want  error
	}{
		{"its own proof", k.Proof("b", now), now, nil},
		{"a proof made 4 min before", k.Proof("b", now.Add(-4*time.Minute)), now, nil},
		{"a proof of a clock 4 min ahead", k.Proof("b", now.Add(4*time.Minute)), now, nil},
		{"a proof replayed 6 min later", k.Proof("b", now), now.Add(6 * time.Minute), ErrStaleProof},
		{"a proof of a clock 6 min ahead", k.Proof("b", now.Add(6*time.Minute)), now, ErrStaleProof},
		{"another machine's proof", k.Proof("c", now), now, ErrWrongProof},
		{"another key's proof", other.Proof("b", now), now, ErrWrongProof},
		{"its time changed", "1" + k.Proof("b", now), now, ErrWrongProof},
		{"no time", strings.SplitN(k.Proof("b", now), ".", 2)[1], now, ErrWrongProof},
		{"nothing", "", now, ErrWrongProof},
	} {
		if err := ok(k, "b", c.proof, c.at); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.what, err, c.want)
		}
	}
	if ok(FleetKey{}, "b", "", now) == nil {
		t.Error("no key accepts no proof")
	}
	if p := k.Proof("b", now); strings.Contains(p, "0123456789abcdef0123") || p == k.Proof("c", now) {
		t.Error("the proof shows the key or is the same for every machine")
	}
}
