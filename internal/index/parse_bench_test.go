package index

import (
	"os"
	"testing"

	"piweb/pisession"
)

// BenchmarkTextParse is the one-read pass's parse alone, without the
// writers: each corpus file read whole and parsed with its text
// (update.parse, as readParse runs it), on one goroutine. It isolates
// the CPU (cpu-MB/s, the process's, collector included) and the
// allocations of the parse path of BenchmarkColdIndex (issue 24 item 3).
func BenchmarkTextParse(b *testing.B) {
	benchCorpusCPU(b, func(dir string) (run, done func()) {
		files := pisession.SessionFiles(dir)
		return func() {
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				u := &update{path: f, full: true, text: true}
				u.parse(data, 0)
			}
		}, func() {}
	})
}
