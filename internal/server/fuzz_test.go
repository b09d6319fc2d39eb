package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: whatever the client sends, a resolved path stays inside
// the cwd, symlinks included.
func FuzzResolve(f *testing.F) {
	root := f.TempDir()
	cwd := filepath.Join(root, "cwd")
	os.MkdirAll(filepath.Join(cwd, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "outside"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(cwd, "sub", "in"), []byte("x"), 0o644)
	os.Symlink(root, filepath.Join(cwd, "escape"))
	os.Symlink("sub", filepath.Join(cwd, "inner"))
	for _, s := range []string{"", "sub/in", "../outside", "escape/outside", "inner/in", "sub/../../outside",
		"/etc/passwd", `..\outside`, "sub/./in", "escape", "inner/../escape/outside"} {
		f.Add(s)
	}
	realCwd, _ := filepath.EvalSymlinks(cwd)
	f.Fuzz(func(t *testing.T, rel string) {
		_, real, err := resolve(cwd, rel)
		if err != nil {
			return
		}
		if real != realCwd && !strings.HasPrefix(real, realCwd+string(filepath.Separator)) {
			t.Fatalf("resolve(%q) = %q, outside %q", rel, real, realCwd)
		}
	})
}

// FuzzSetMember: replacing a header member keeps a valid object with the
// other members unchanged.
func FuzzSetMember(f *testing.F) {
	f.Add(`{"type":"session","id":"x","parentSession":"/a"}`, "/b")
	f.Add(`{"a":1,"b":[1,2],"c":{"d":null}}`, "")
	f.Fuzz(func(t *testing.T, obj, val string) {
		var v []byte
		if val != "" {
			v = []byte(`"` + strings.ReplaceAll(strings.ReplaceAll(val, `\`, `\\`), `"`, `\"`) + `"`)
		}
		out, err := setMember([]byte(obj), "parentSession", v)
		if err != nil {
			return
		}
		if !jsonValid(out) && jsonValid(v) {
			t.Fatalf("setMember(%q) = %q, not JSON", obj, out)
		}
	})
}

func jsonValid(b []byte) bool {
	if b == nil {
		return true
	}
	return json.Valid(b)
}
