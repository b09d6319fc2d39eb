package session

import (
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
