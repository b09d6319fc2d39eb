package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetParentKeepsBytes: re-pointing a header keeps every other byte,
// writes the new path as JSON.stringify does (U+2028 and / unescaped,
// unlike encoding/json), and refuses when the parent is not the expected
// one.
func TestSetParentKeepsBytes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	head := `{"type":"session","version":3,"id":"a<b>","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x\u2028y","parentSession":"/old/p.jsonl"}`
	rest := `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi <&>","timestamp":1}}` + "\n"
	os.WriteFile(p, []byte(head+"\n"+rest), 0o600)
	if err := SetParent(p, "/other", "/new"); err != ErrParentChanged {
		t.Fatalf("wrong from: %v", err)
	}
	to := "/new/a\u2028b & <c>.jsonl"
	if err := SetParent(p, "/old/p.jsonl", to); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := strings.Replace(head, `"/old/p.jsonl"`, "\"/new/a\u2028b & <c>.jsonl\"", 1) + "\n" + rest
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := SetParent(p, to, ""); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(p)
	if want := strings.Replace(head, `,"parentSession":"/old/p.jsonl"`, "", 1) + "\n" + rest; string(got) != want {
		t.Errorf("removed: got\n%s\nwant\n%s", got, want)
	}
}
