package access

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFleetKey: a key file is accepted only as a regular file of this
// user that no one else may read, holding a long enough key; the key
// matches itself only.
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
	if !k.OK("0123456789abcdef0123") || k.OK("0123456789abcdef012") || k.OK("") || (FleetKey{}).OK("") {
		t.Error("the key matches something other than itself")
	}
}
