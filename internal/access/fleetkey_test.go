package access

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	switch {
	case !k.ProofOK("b", k.Proof("b")):
		t.Error("a machine's proof is refused")
	case k.ProofOK("c", k.Proof("b")), k.ProofOK("b", other.Proof("b")), k.ProofOK("b", ""), (FleetKey{}).ProofOK("b", ""):
		t.Error("a proof for another machine, of another key, or none is accepted")
	case strings.Contains(k.Proof("b"), "0123456789abcdef0123"), k.Proof("b") == k.Proof("c"):
		t.Error("the proof shows the key or is the same for every machine")
	}
}
