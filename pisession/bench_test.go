package pisession

import (
	"os"
	"testing"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
)

// benchFile returns a large realistic session file (corpus.BenchFile).
func benchFile(b *testing.B) string {
	f, err := corpus.BenchFile(os.Getenv, 100<<20)
	if err != nil {
		b.Fatal(err)
	}
	return f
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
	data := testkit.ReadFile(b, benchFile(b))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	defer func() { reportCPU(b, start, int64(len(data))) }()
	for b.Loop() {
		Parse(data)
	}
}

// BenchmarkDetailTree compares what a session's detail costs of a large
// file: the parse with its compact tree (way=parse), and ScanTree (a line
// at a time, nothing kept; way=scan), both from the file.
func BenchmarkDetailTree(b *testing.B) {
	path := benchFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, tree func() int) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		start := cpuTime()
		defer func() { reportCPU(b, start, st.Size()) }()
		for b.Loop() {
			if tree() == 0 {
				b.Fatal("no tree")
			}
		}
	}
	b.Run("way=parse", func(b *testing.B) {
		run(b, func() int {
			s, err := ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			return len(s.CompactTree(s.LabelMap()))
		})
	})
	b.Run("way=scan", func(b *testing.B) {
		run(b, func() int {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			t, ok, err := ScanTree(f)
			if err != nil || !ok {
				b.Fatalf("scan refused: %v", err)
			}
			return len(t.Tree)
		})
	})
}

// BenchmarkContext builds the context of a parsed file, the part of
// BenchmarkOpenContext after the parse (MB/s of the file).
func BenchmarkContext(b *testing.B) {
	s := readSession(b, benchFile(b))
	b.SetBytes(s.Size)
	b.ReportAllocs()
	for b.Loop() {
		if len(s.Context("").Messages) == 0 {
			b.Fatal("empty context")
		}
	}
}
