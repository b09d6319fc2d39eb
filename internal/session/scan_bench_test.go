package session

import (
	"bytes"
	"os"
	"testing"
)

func benchLines(b *testing.B) ([][]byte, int64) {
	data, err := os.ReadFile(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Split(data, []byte("\n")), int64(len(data))
}

// BenchmarkScanExact and BenchmarkScanFast compare the two string scanners
// on the lines of the large file.
func BenchmarkScanExact(b *testing.B) { benchScan(b, true) }
func BenchmarkScanFast(b *testing.B)  { benchScan(b, false) }

func benchScan(b *testing.B, exact bool) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	start := cpuTime()
	defer func() { reportCPU(b, start, n) }()
	for b.Loop() {
		for _, l := range lines {
			if len(l) > 0 {
				if _, ok := scanContainer(l, 0, map[bool]scanMode{true: modeExact, false: modeFast}[exact]); !ok {
					b.Fatal("invalid")
				}
			}
		}
	}
}
