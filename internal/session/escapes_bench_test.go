package session

import (
	"os"
	"testing"
)

// checkEscapesLoop is the byte-loop variant of checkEscapes, kept to show
// why the word-at-a-time one is used (BenchmarkCheckEscapes).
func checkEscapesLoop(body []byte) bool {
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		n, ok := escapeLen(body, i)
		if !ok {
			return false
		}
		i += n - 1
	}
	return true
}

func escapeBodies(b *testing.B) ([][]byte, int64) {
	data, err := os.ReadFile(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	var bodies [][]byte
	var n int64
	for i := 0; i < len(data) && len(bodies) < 20000; {
		q := i + 1
		end, ok := scanString(data, i, modeFast)
		if data[i] == '"' && ok {
			bodies = append(bodies, data[q:end-1])
			n += int64(end - q)
			i = end
			continue
		}
		i++
	}
	return bodies, n
}

func BenchmarkCheckEscapes(b *testing.B) {
	bodies, n := escapeBodies(b)
	for _, v := range []struct {
		name string
		fn   func([]byte) bool
	}{{"loop", checkEscapesLoop}, {"swar", checkEscapes}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(n)
			start := cpuTime()
			for b.Loop() {
				for _, body := range bodies {
					if !v.fn(body) {
						b.Fatal("invalid")
					}
				}
			}
			reportCPU(b, start, n)
		})
	}
}
