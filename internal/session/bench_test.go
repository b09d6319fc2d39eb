package session

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"piweb/internal/corpus"
)

// benchFile returns a large realistic session file: $PIWEB_BENCH_FILE, or a
// 100 MB file generated once (deterministically) under the temp dir. The
// bench/session script runs pi's own open + buildSessionContext on the same
// file and prints the ratio.
func benchFile(b *testing.B) string {
	if f := os.Getenv("PIWEB_BENCH_FILE"); f != "" {
		return f
	}
	dir := filepath.Join(os.TempDir(), "piweb-bench-session-100mb")
	files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
	if len(files) == 0 {
		const size = 100 << 20
		if _, err := corpus.Generate(dir, corpus.Options{Files: 1, Bytes: size, BigFiles: 1, BigBytes: size, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		files, _ = filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
	}
	return files[0]
}

// BenchmarkOpenContext reads, parses and builds the context of a large
// file, the work pi's SessionManager.open plus buildSessionContext does.
func BenchmarkOpenContext(b *testing.B) {
	path := benchFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	start := cpuTime()
	defer func() { reportCPU(b, start, st.Size()) }()
	for b.Loop() {
		s, err := ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Context("").Messages) == 0 {
			b.Fatal("empty context")
		}
	}
}

// BenchmarkParse measures parsing alone, from memory.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	defer func() { reportCPU(b, start, int64(len(data))) }()
	for b.Loop() {
		Parse(data)
	}
}

// BenchmarkCacheAfterAppend is the cache's answer for a large session
// (100 MB) that a pi just appended a line to: what a page following it
// live costs the server per appended line. Before the cache read only
// appended bytes it was a whole read and parse of the file.
func BenchmarkCacheAfterAppend(b *testing.B) {
	data, err := os.ReadFile(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	leaf := Parse(data).Leaf().ID
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
