package index

import (
	"bytes"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"piweb/pisession"
)

// BenchmarkReadFloor is the floor under any cold listing that looks at
// every byte: the corpus's files taken as SkimListJSON takes them (on
// GOMAXPROCS goroutines), every byte passed once through
// bytes.IndexByte (AVX2, far faster than any JSON validation), nothing
// else. "read" reads each file in readChunk preads, "mapped" maps it.
// Compare its cpu-MB/s with SkimListJSON's: the difference is the
// validation and the listing (issue 24 item 2, bench/NOTES.md).
func BenchmarkReadFloor(b *testing.B) {
	for _, mapped := range []bool{false, true} {
		name := map[bool]string{false: "read", true: "mapped"}[mapped]
		b.Run(name, func(b *testing.B) {
			benchCorpusCPU(b, func(dir string) (run, done func()) {
				files := pisession.SessionFiles(dir)
				return func() { touchAll(b, files, mapped) }, func() {}
			})
		})
	}
}

// touchAll passes every byte of files through bytes.IndexByte.
func touchAll(b *testing.B, files []string, mapped bool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			buf := make([]byte, readChunk)
			for k := next.Add(1) - 1; k < int64(len(files)); k = next.Add(1) - 1 {
				if err := touchFile(files[k], buf, mapped); err != nil {
					b.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func touchFile(path string, buf []byte, mapped bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	if mapped {
		data, err := mapOpen(f, 0, fi.Size())
		if err != nil {
			return err
		}
		defer syscall.Munmap(data)
		bytes.IndexByte(data, 0)
		return nil
	}
	for off := int64(0); off < fi.Size(); {
		n, err := f.ReadAt(buf, off)
		if n == 0 {
			return err
		}
		bytes.IndexByte(buf[:n], 0)
		off += int64(n)
	}
	return nil
}
