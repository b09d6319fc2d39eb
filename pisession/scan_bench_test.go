package pisession

import (
	"bytes"
	"testing"

	"piweb/internal/testkit"
)

func benchLines(b *testing.B) ([][]byte, int64) {
	data := testkit.ReadFile(b, benchFile(b))
	return bytes.Split(data, []byte("\n")), int64(len(data))
}

// BenchmarkScan validates the lines of the large file, the scanner alone.
func BenchmarkScan(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	start := cpuTime()
	defer func() { reportCPU(b, start, n) }()
	for b.Loop() {
		for _, l := range lines {
			if len(l) > 0 {
				if _, _, ok := scanValue(l, 0, modeFast); !ok {
					b.Fatal("invalid")
				}
			}
		}
	}
}
