package index

import (
	"math"
	"os"
	"runtime/debug"
	"syscall"
)

// mapMin is the size from which the cold listing (skim) maps a file
// instead of reading it: reading copies every byte from the page cache
// first (a quarter of that listing's CPU time), mapping lets the
// validator read the page cache itself (8-12% less CPU for the whole
// listing, BenchmarkSkimListJSON). Mapping every file, or those of 64 KB
// and more, measured the same as from 1 MB; smaller files are read.
const mapMin = 1 << 20

// foldMapped folds the whole file f into u from a read-only mapping of its
// first u.fid.size bytes. ok is false, and u must be thrown away, when the
// file could not be mapped or shrank under the mapping (the access past
// its end faults: SetPanicOnFault turns that into a panic recovered here);
// the caller then reads the file instead.
func (ix *Index) foldMapped(f readFile, u *update) (ok bool) {
	of, isFile := f.(*os.File)
	if !isFile || u.fid.size <= 0 || u.fid.size > math.MaxInt {
		return false
	}
	data, err := mapOpen(of, int(u.fid.size))
	if err != nil {
		return false
	}
	defer syscall.Munmap(data)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			ok = false
		}
	}()
	u.begin(0)
	u.end(data[u.fold(data, 0):])
	ix.bytesRead.Add(int64(len(data)))
	return true
}

// mapOpen maps the first n bytes of the open file f read-only.
func mapOpen(f *os.File, n int) (data []byte, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	cerr := rc.Control(func(fd uintptr) {
		data, err = syscall.Mmap(int(fd), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if cerr != nil {
		return nil, cerr
	}
	return data, err
}
