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

// mapWindow is how much of a file the cold listing maps at a time: the
// pages it touched count in the process's resident memory until they are
// unmapped (two whole 157 MB files mapped at once showed as 300 MB).
const mapWindow = 16 << 20

// foldMapped folds the whole file f into u from read-only mappings of
// window bytes at a time (the last window ends at u.fid.size). ok is
// false, and u must be thrown away, when the file could not be mapped,
// holds a line longer than a window, or shrank under the mapping (the
// access past its end faults: SetPanicOnFault turns that into a panic
// recovered here); the caller then reads the file instead.
func (ix *Index) foldMapped(f readFile, u *update, window int64) (ok bool) {
	of, isFile := f.(*os.File)
	if !isFile || u.fid.size <= 0 {
		return false
	}
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
	for pos := int64(0); ; {
		used, done, err := ix.foldWindow(of, u, pos, window)
		switch {
		case err != nil || !done && used == 0:
			return false
		case done:
			return true
		}
		pos += used
	}
}

// foldWindow maps up to window bytes of f from the page that holds pos
// and folds its complete lines from pos into u; it returns the bytes
// used, and done, with u ended, when the window reached the file's end.
func (ix *Index) foldWindow(f *os.File, u *update, pos, window int64) (used int64, done bool, err error) {
	from := pos &^ int64(os.Getpagesize()-1)
	n := min(u.fid.size-from, max(window, pos-from+1))
	data, err := mapOpen(f, from, n)
	if err != nil {
		return 0, false, err
	}
	defer syscall.Munmap(data)
	chunk := data[pos-from:]
	k := u.fold(chunk, pos)
	if from+n == u.fid.size {
		u.end(chunk[k:])
		ix.bytesRead.Add(int64(len(chunk)))
		return int64(len(chunk)), true, nil
	}
	ix.bytesRead.Add(int64(k))
	return int64(k), false, nil
}

// mapOpen maps n bytes of the open file f from offset off (a multiple of
// the page size) read-only.
func mapOpen(f *os.File, off, n int64) (data []byte, err error) {
	if n <= 0 || n > math.MaxInt {
		return nil, syscall.EINVAL
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	cerr := rc.Control(func(fd uintptr) {
		data, err = syscall.Mmap(int(fd), off, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if cerr != nil {
		return nil, cerr
	}
	return data, err
}
