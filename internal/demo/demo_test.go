package demo

import (
	"os"
	"path/filepath"
	"testing"

	"piweb/pisession"
)

// TestSeed checks that every sample is a valid session pi would list, that
// the fork names its parent's real path, and that nothing is a defect.
func TestSeed(t *testing.T) {
	d, err := Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	infos := pisession.ListAll(d.AgentDir)
	if len(infos) != len(d.Sessions) {
		t.Fatalf("listed %d sessions, seeded %d", len(infos), len(d.Sessions))
	}
	parents := 0
	for _, in := range infos {
		s, err := pisession.ReadFile(in.Path)
		if err != nil {
			t.Fatal(err)
		}
		if p := s.Defects(); len(p) > 0 {
			t.Errorf("%s: defects %v", filepath.Base(in.Path), p)
		}
		if ps, ok := s.Header.String("parentSession"); ok {
			parents++
			if _, err := os.Stat(ps); err != nil {
				t.Errorf("fork parent %s: %v", ps, err)
			}
		}
		if fi, err := os.Stat(in.Cwd); err != nil || !fi.IsDir() {
			t.Errorf("cwd %s missing", in.Cwd)
		}
		if len(s.Context("").Messages) == 0 {
			t.Errorf("%s: empty context", filepath.Base(in.Path))
		}
	}
	if parents != 1 {
		t.Errorf("%d forks, want 1", parents)
	}
}
