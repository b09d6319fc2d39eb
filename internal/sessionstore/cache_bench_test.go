package sessionstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// BenchmarkCacheAfterAppend is the cache's answer for a large session
// (100 MB) that a pi just appended a line to: what a page following it
// live costs the server per appended line. Before the cache read only
// appended bytes it was a whole read and parse of the file.
func BenchmarkCacheAfterAppend(b *testing.B) {
	src, err := corpus.BenchFile(os.Getenv, 100<<20)
	if err != nil {
		b.Fatal(err)
	}
	data := testkit.ReadFile(b, src)
	p := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	leaf := pisession.Parse(data).Leaf().ID
	data = nil
	c := NewCache(4, 4<<30)
	if _, err := c.Load(p); err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	i := 0
	for b.Loop() {
		id := fmt.Sprintf("bench%04d", i)
		fmt.Fprintf(f, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"one more","timestamp":1}}`+"\n", id, leaf)
		leaf, i = id, i+1
		s, err := c.Load(p)
		if err != nil || s.Leaf().ID != id {
			b.Fatalf("load: %v", err)
		}
	}
}
