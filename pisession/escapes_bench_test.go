package pisession

import (
	"testing"

	"piweb/internal/testkit"
)

// checkEscapesLoop validates a string body one byte at a time, the
// reference that BenchmarkCheckEscapes compares scanString with.
func checkEscapesLoop(body []byte) bool {
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c < 0x20:
			return false
		case c != '\\':
			continue
		}
		if i+1 >= len(body) {
			return false
		}
		switch body[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if i+6 > len(body) {
				return false
			}
			i += 5
		default:
			return false
		}
	}
	return true
}

// escapeStrings returns up to 20,000 strings of the large file, quotes
// included.
func escapeStrings(b *testing.B) ([][]byte, int64) {
	data := testkit.ReadFile(b, benchFile(b))
	var strs [][]byte
	var n int64
	for i := 0; i < len(data) && len(strs) < 20000; {
		if data[i] != '"' {
			i++
			continue
		}
		end, ok := scanString(data, i, modeFast)
		if !ok {
			i++
			continue
		}
		strs = append(strs, data[i:end])
		n += int64(end - i)
		i = end
	}
	return strs, n
}

// BenchmarkCheckEscapes validates the strings of a session: loop checks
// the bodies one byte at a time (given their ends); scanString finds the
// end and validates in one pass, as the parser does.
func BenchmarkCheckEscapes(b *testing.B) {
	strs, n := escapeStrings(b)
	for _, v := range []struct {
		name string
		fn   func([]byte) bool
	}{
		{"loop", func(s []byte) bool { return checkEscapesLoop(s[1 : len(s)-1]) }},
		{"scanString", func(s []byte) bool { end, ok := scanString(s, 0, modeFast); return ok && end == len(s) }},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(n)
			start := cpuTime()
			for b.Loop() {
				for _, s := range strs {
					if !v.fn(s) {
						b.Fatal("invalid")
					}
				}
			}
			reportCPU(b, start, n)
		})
	}
}
