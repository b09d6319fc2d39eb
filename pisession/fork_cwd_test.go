package pisession

import (
	"bytes"
	"testing"
)

// TestInCwd: only the header's cwd changes; the entries keep their bytes.
func TestInCwd(t *testing.T) {
	src := Parse([]byte(`{"type":"session","version":3,"id":"a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/gone"}` + "\n" +
		`{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n"))
	out, err := src.Extract("e1", "/src.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	moved := InCwd(out, "/new/place")
	s := Parse(moved)
	if cwd, _ := s.Header.String("cwd"); cwd != "/new/place" {
		t.Errorf("cwd %q, want /new/place", cwd)
	}
	if ps, _ := s.Header.String("parentSession"); ps != "/src.jsonl" {
		t.Errorf("parentSession %q", ps)
	}
	_, a, _ := bytes.Cut(out, []byte("\n"))
	_, b, _ := bytes.Cut(moved, []byte("\n"))
	if !bytes.Equal(a, b) || len(s.Defects()) > 0 {
		t.Errorf("entries changed or damaged: %q %v", b, s.Defects())
	}
}
