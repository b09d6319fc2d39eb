package own

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPrefs: the defaults (model titles off) until set; a change is in a
// private file and holds after reopening; a file that does not parse is
// refused and left as it is; no dir keeps them in memory.
func TestPrefs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "piweb")
	s, err := OpenPrefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Get().ModelTitles {
		t.Fatal("model titles are on by default")
	}
	if err := s.Set(Prefs{ModelTitles: true}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "prefs.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("prefs.json: %v %v", fi, err)
	}
	again, err := OpenPrefs(dir)
	if err != nil || !again.Get().ModelTitles {
		t.Fatalf("reopened: %+v %v", again, err)
	}
	os.WriteFile(filepath.Join(dir, "prefs.json"), []byte("{oops"), 0o600)
	if _, err := OpenPrefs(dir); err == nil {
		t.Error("a corrupt file opened")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "prefs.json")); string(b) != "{oops" {
		t.Errorf("the corrupt file became %q", b)
	}
	mem, _ := OpenPrefs("")
	if err := mem.Set(Prefs{ModelTitles: true}); err != nil || !mem.Get().ModelTitles {
		t.Errorf("in memory: %v", err)
	}
}
