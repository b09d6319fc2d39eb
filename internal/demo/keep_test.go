package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestKeepUserSessions: a session started during the demo in a real
// folder is moved to the real agent dir and survives Close; the samples
// and sessions in the demo's projects are deleted with the demo.
func TestKeepUserSessions(t *testing.T) {
	d, err := Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := t.TempDir()
	mine := filepath.Join(d.AgentDir, "sessions", pisession.EncodeCwd("/home/me/work"), "2026-12-01T10-00-00-000Z_01c00000-0000-7000-8000-000000000001.jsonl")
	sample := filepath.Join(d.AgentDir, "sessions", pisession.EncodeCwd(filepath.Join(d.Projects, "x")), "2026-12-01T10-00-00-000Z_01c00000-0000-7000-8000-000000000002.jsonl")
	content := `{"type":"session","version":3,"id":"01c00000-0000-7000-8000-000000000001","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/home/me/work"}` + "\n"
	for p, c := range map[string]string{mine: content, sample: strings.ReplaceAll(content, "/home/me/work", filepath.Join(d.Projects, "x"))} {
		testkit.WriteFile(t, p, c)
	}
	if n := d.UserSessions(); n != 1 {
		t.Fatalf("UserSessions = %d, want 1", n)
	}
	kept, err := d.KeepUserSessions(real)
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept %v, %v", kept, err)
	}
	want := filepath.Join(real, "sessions", pisession.EncodeCwd("/home/me/work"), filepath.Base(mine))
	if b, err := os.ReadFile(want); err != nil || string(b) != content {
		t.Fatalf("kept session at %s: %q %v", want, b, err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Root); !os.IsNotExist(err) {
		t.Errorf("demo folder left: %v", err)
	}
}

// TestCloseKeepsUnmovedUserSessions: without KeepUserSessions, Close
// refuses to delete a folder that holds a user's session.
func TestCloseKeepsUnmovedUserSessions(t *testing.T) {
	d, err := Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d.AgentDir, "sessions", pisession.EncodeCwd("/home/me/work"), "2026-12-01T10-00-00-000Z_01c00000-0000-7000-8000-000000000001.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"type":"session","version":3,"id":"01c00000-0000-7000-8000-000000000001","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/home/me/work"}`+"\n"), 0o644)
	if err := d.Close(); err == nil {
		t.Error("Close deleted a user's session")
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("user's session gone: %v", err)
	}
}
