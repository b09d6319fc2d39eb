package cwdfs

import (
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
		_, real, err := Resolve(cwd, rel)
		if err != nil {
			return
		}
		if real != realCwd && !strings.HasPrefix(real, realCwd+string(filepath.Separator)) {
			t.Fatalf("resolve(%q) = %q, outside %q", rel, real, realCwd)
		}
	})
}
