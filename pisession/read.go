package pisession

import (
	"errors"
	"io"
	"os"
	"strings"
	"unsafe"
)

// readAll reads the whole file at path, as os.ReadFile does, into a
// buffer that is not zeroed first: the read overwrites every byte the
// parse sees, and zeroing a large buffer (the runtime must, for a fresh
// make) was a third of the read's cost on a 60 MB file of short entries.
func readAll(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<40 {
		size = int(fi.Size())
	}
	buf := makeNoZero(size + 512)[:0] // room to see EOF without growing, as os.ReadFile
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) { // the file grew: let append find room
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// makeNoZero returns a byte slice of length n whose bytes are left as
// the allocator found them. strings.Builder.Grow is the standard
// library's way to such memory (bytealg.MakeNoZero); the one byte written
// makes its buffer visible, and the slice then covers the n bytes the
// Grow allocated. Nothing else refers to the builder or its string.
func makeNoZero(n int) []byte {
	var sb strings.Builder
	sb.Grow(n + 1)
	sb.WriteByte(0)
	s := sb.String()
	return unsafe.Slice(unsafe.StringData(s), n+1)[:n:n]
}
