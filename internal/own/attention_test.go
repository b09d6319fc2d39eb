package own

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStoreKeepsMarks: marks and mutes survive a reopen, a read mark
// never moves back, unlisted sessions' marks are forgotten, and the file
// is the user's alone.
func TestStoreKeepsMarks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "piweb")
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	s, err := OpenAttention(dir, t0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Silenced("a") {
		t.Error("a fresh store silences a session")
	}
	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	if _, err := s.MarkRead(map[string]time.Time{"a": t2, "b": t1, "gone": t1}, nil); err != nil {
		t.Fatal(err)
	}
	listed := func(id string) bool { return id != "gone" }
	if _, err := s.MarkRead(map[string]time.Time{"a": t1}, listed); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMuted("b", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMuted("a", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMuted("a", false); err != nil {
		t.Fatal(err)
	}
	if !s.Silenced("b") || s.Silenced("a") {
		t.Error("per-session mute")
	}
	if _, err := s.SetGlobalMute(true); err != nil {
		t.Fatal(err)
	}
	if !s.Silenced("a") {
		t.Error("the global mute does not silence a")
	}

	again, err := OpenAttention(dir, t2.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := Attention{Since: t0, Read: map[string]time.Time{"a": t2, "b": t1}, Muted: []string{"b"}, GlobalMute: true, Rev: 6}
	if d := cmp.Diff(want, again.State()); d != "" {
		t.Errorf("reopened state (-want +got):\n%s", d)
	}
	fi, err := os.Stat(filepath.Join(dir, "attention.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", di.Mode())
	}
}

// TestOpenRefusesCorrupt: a file that does not parse is reported and left
// as it is.
func TestOpenRefusesCorrupt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "attention.json")
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAttention(dir, time.Now()); err == nil {
		t.Fatal("a corrupt file opened")
	}
	if b, _ := os.ReadFile(p); string(b) != "{not json" {
		t.Errorf("the corrupt file changed: %q", b)
	}
}

// TestMemoryStore: dir "" writes nothing.
func TestMemoryStore(t *testing.T) {
	s, err := OpenAttention("", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetMuted("x", true); err != nil || !s.Silenced("x") {
		t.Fatalf("mute in memory: %v", err)
	}
}
