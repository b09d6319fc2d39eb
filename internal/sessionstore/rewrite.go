package sessionstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"piweb/internal/durable"
)

// RewriteFile replaces the file at path with data without ever truncating
// it: data goes to a temp file in the same folder, is synced, the original
// is kept as a backup (a hard link), and the temp file is renamed over the
// original. Bytes another process appends to the original while this
// runs land in the backup (the same file); after the rename they are
// copied onto the new file (carryAppends), so no line is lost. wantSize,
// when >= 0, is the size the caller read; a different size means somebody
// wrote in between and nothing is replaced. It returns the backup path.
func RewriteFile(path string, data []byte, wantSize int64) (string, error) {
	return rewriteFile(path, data, wantSize, nil)
}

// rewriteFile is RewriteFile; beforeRename, when set, runs just before the
// rename (tests append there).
func rewriteFile(path string, data []byte, wantSize int64, beforeRename func()) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("rewrite: %w", err)
	} else if wantSize >= 0 && st.Size() != wantSize {
		return "", ErrChanged
	}
	read := st.Size()
	if wantSize >= 0 {
		read = wantSize
	}
	active, _ := openByAnyone(st) // a writer at work (see writerSettle)
	tmp, err := durable.TempFile(filepath.Dir(path), data)
	if err != nil {
		return "", err
	}
	backup := carriedName(BackupPath(path, time.Now()), read)
	if err := os.Link(path, backup); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("rewrite: keep backup: %w", err)
	}
	if beforeRename != nil {
		beforeRename()
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("rewrite: %w", err)
	}
	carried, err := carryAppends(backup, path, read, active)
	if err != nil {
		return backup, err
	}
	if b := carriedName(backup, carried); b != backup && os.Rename(backup, b) == nil {
		backup = b
	}
	return backup, durable.SyncDir(filepath.Dir(path))
}

// A backup's name ends in "+N" (carriedName): N is the offset up to which
// its bytes are in the live file (the size read before the rewrite, then
// what carryAppends copied). Bytes past N are lines a writer put in the
// old file after the carry ended (a writer stalled in open(2) for longer
// than writerSettle); Store.CarryLate copies them at the next start, and a
// crash between the rename and the carry leaves the same state.

// carriedName is backup named with carried offset n.
func carriedName(backup string, n int64) string {
	if i := offsetAt(backup); i >= 0 {
		backup = backup[:i]
	}
	return backup + "+" + strconv.FormatInt(n, 10)
}

// carriedOffset is the offset a backup's name records; ok is false for a
// name without one.
func carriedOffset(name string) (n int64, ok bool) {
	i := offsetAt(name)
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 64)
	return n, err == nil && n >= 0
}

// offsetAt is the index of the '+' that starts a backup name's offset, or
// -1 when the name has none.
func offsetAt(name string) int {
	if i := strings.LastIndexByte(name, '+'); i > strings.LastIndex(name, ".piweb-backup-") {
		return i
	}
	return -1
}

// A writer such as pi opens the path for each line, so one that opened
// the old file just before the rename writes to it after. carryAppends
// therefore copies until the old file has neither grown nor been open in
// any process (on Linux, from /proc) for a settle time, for at most
// carryWait. The settle time is carrySettle, or writerSettle once a writer
// was seen during the rewrite (the old file grew or was open): such a
// writer may have resolved the path to the old file and be stalled inside
// open(2), where /proc does not show it yet, and its line would reach only
// the backup.
const (
	carrySettle  = 20 * time.Millisecond
	writerSettle = 500 * time.Millisecond
	carryWait    = 5 * time.Second
)

// carryAppends copies the bytes after from in the old file (the backup)
// onto the new file at path with O_APPEND writes. active says a writer was
// seen before the rename.
// It returns the offset up to which the old file's bytes are carried.
func carryAppends(old, path string, from int64, active bool) (int64, error) {
	start, quiet := time.Now(), time.Now()
	for {
		st, err := os.Stat(old)
		if err != nil {
			return from, fmt.Errorf("rewrite: carry appends: %w", err)
		}
		if st.Size() > from {
			if err := copyRange(old, path, from, st.Size()); err != nil {
				return from, err
			}
			from, quiet, active = st.Size(), time.Now(), true
			continue
		}
		// Done once the old file has been quiet for the settle time and no
		// process has it open (a writer inside open(2) when /proc was read
		// shows up on the next read, or writes within the settle time).
		if open, _ := openByAnyone(st); open {
			quiet, active = time.Now(), true
		}
		settle := carrySettle
		if active {
			settle = writerSettle
		}
		if time.Since(quiet) >= settle || time.Since(start) >= carryWait {
			return from, nil
		}
		time.Sleep(time.Millisecond)
	}
}

// openByAnyone reports whether a process of this user (this one included)
// has the file open, from /proc's fd links; known is false without /proc.
func openByAnyone(st os.FileInfo) (open, known bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	for _, p := range procs {
		if c := p.Name()[0]; c < '0' || c > '9' {
			continue
		}
		dir := "/proc/" + p.Name() + "/fd/"
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			if fst, err := os.Stat(dir + fd.Name()); err == nil && os.SameFile(st, fst) {
				return true, true
			}
		}
	}
	return false, true
}

// copyRange appends bytes [from, to) of the file src to dst in one write.
func copyRange(src, dst string, from, to int64) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("rewrite: carry appends: %w", err)
	}
	defer in.Close()
	buf := make([]byte, to-from)
	if _, err := in.ReadAt(buf, from); err != nil {
		return fmt.Errorf("rewrite: carry appends: %w", err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("rewrite: carry appends: %w", err)
	}
	if _, err := out.Write(buf); err != nil {
		out.Close()
		return fmt.Errorf("rewrite: carry appends: %w", err)
	}
	return out.Close()
}
