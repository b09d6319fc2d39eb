package sessionstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"piweb/internal/testkit"
	"piweb/pisession"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func writeSession(t *testing.T) (string, *pisession.Session) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	testkit.WriteFile(t, path, sHdr+"\n")
	s, err := pisession.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, s
}

func appendBytes(t testing.TB, path string, b []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Error(err)
	}
}

// TestAppendFullDisk appends to a session on a full tmpfs (needs root to
// mount one): the append fails and the file is unchanged.
func TestAppendFullDisk(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s); TestAppendShortWriteUndone covers the logic", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "s.jsonl")
	testkit.WriteFile(t, path, sHdr+"\n")
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := fill.Write(make([]byte, 1024)); err != nil {
			break
		}
	}
	fill.Close()
	s, err := pisession.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AppendName(path, s, strings.Repeat("x", 64<<10))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if got, _ := os.ReadFile(path); string(got) != sHdr+"\n" {
		t.Errorf("file = %.100q..., want it unchanged", got)
	}
}

// TestRewriteCarriesAppends: lines another process appends to the old file
// during a rewrite are copied onto the new one (issue 17.9).
func TestRewriteCarriesAppends(t *testing.T) {
	path, s := writeSession(t)
	lines := []string{`{"late":1}`, `{"late":2}`}
	data := append(s.Encode(), `{"rewritten":true}`+"\n"...)
	backup, err := rewriteFile(path, data, s.Size, func() {
		for _, l := range lines {
			appendBytes(t, path, []byte(l+"\n"))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := string(data) + strings.Join(lines, "\n") + "\n"
	if string(got) != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(backup); !strings.HasSuffix(string(b), lines[1]+"\n") {
		t.Errorf("backup = %q, want the old file as it ended", b)
	}
}

// TestRewriteCarriesStalledOpen is issue 17.9's rare race made certain: a
// writer appends during the rewrite, and its next open resolved the path
// to the old file before the rename but returns only 100 ms after it (a
// stall inside open(2), where /proc shows no descriptor): its line is
// carried onto the new file by the rewrite, or, when the stall outlasts
// writerSettle, by the next start.
func TestRewriteCarriesStalledOpen(t *testing.T) {
	path, s := writeSession(t)
	data := append(s.Encode(), `{"rewritten":true}`+"\n"...)
	stalled := make(chan error, 1)
	backup, err := rewriteFile(path, data, s.Size, func() {
		appendBytes(t, path, []byte(`{"late":1}`+"\n"))
		// The old inode, reached by its other name (the backup, linked
		// before the rename) so that no descriptor shows meanwhile.
		backups, _ := filepath.Glob(path + ".piweb-backup-*")
		if len(backups) != 1 {
			t.Fatalf("backups %v", backups)
		}
		inode := filepath.Join(t.TempDir(), "old-inode") // the backup is renamed later
		if err := os.Link(backups[0], inode); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(100 * time.Millisecond) // > carrySettle
			f, err := os.OpenFile(inode, os.O_WRONLY|os.O_APPEND, 0)
			if err == nil {
				_, err = f.Write([]byte(`{"late":2}` + "\n"))
				f.Close()
			}
			stalled <- err
		}()
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-stalled; err != nil {
		t.Fatal(err)
	}
	// On a loaded machine the stall can outlast writerSettle: the next
	// start carries the line then (Store.Tidy's CarryLate).
	carryBackups(path)
	got, _ := os.ReadFile(path)
	if want := string(data) + `{"late":1}` + "\n" + `{"late":2}` + "\n"; string(got) != want {
		t.Errorf("file = %q, want %q (backup %s)", got, want, backup)
	}
}

// TestRewriteConcurrentWriter rewrites a file again and again while
// another process appends to it line by line, as pi does (open, append,
// close): every line the writer wrote is in the file at the end. On a
// heavily loaded machine a writer can stall inside open(2) after the path
// was resolved to the old file and before /proc shows it; such a line
// stays in the backup until the next start carries it (carryLate, run
// here as Tidy would).
func TestRewriteConcurrentWriter(t *testing.T) {
	path, _ := writeSession(t)
	const n = 300
	writer := exec.Command("sh", "-c", `i=0; while [ $i -lt `+fmt.Sprint(n)+` ]; do
		printf '{"type":"custom","id":"w%d","parentId":null,"timestamp":"t"}\n' $i >> "$1"; i=$((i+1)); done`, "sh", path)
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := writer.Wait(); err != nil {
			t.Error(err)
		}
	})
	for range 15 {
		data := testkit.ReadFile(t, path)
		_, err := RewriteFile(path, data, int64(len(data)))
		if err != nil && !errors.Is(err, ErrChanged) {
			t.Fatal(err)
		}
	}
	wg.Wait()
	late := carryBackups(path)
	got, _ := os.ReadFile(path)
	for i := range n {
		if !bytes.Contains(got, fmt.Appendf(nil, `"id":"w%d",`, i)) {
			t.Errorf("line w%d lost", i)
		}
	}
	if late > 0 {
		t.Logf("%d backups held lines a writer stalled inside open(2) wrote after the carry", late)
	}
}

// carryBackups does for path's backups what Store.CarryLate does at start
// and returns how many it carried from.
func carryBackups(path string) int {
	n := 0
	names, _ := filepath.Glob(path + ".piweb-backup-*")
	for _, b := range names {
		if fi, err := os.Stat(b); err == nil && carryLate(Backup{Path: b, Session: path, Size: fi.Size()}) {
			n++
		}
	}
	return n
}

// TestMoveUndoFailureSaid: when a failed move cannot remove its new link
// either, the file is at both places and the error says so (it said
// only why the move failed).
func TestMoveUndoFailureSaid(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "a"), filepath.Join(dir, "trash-a")
	os.WriteFile(src, []byte("x\n"), 0o600)
	err := moveFile(src, dst, func(string) error {
		// What stands at dst now cannot be removed by os.Remove.
		os.Remove(dst)
		os.MkdirAll(filepath.Join(dst, "sub"), 0o755)
		return os.ErrPermission
	})
	if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "stays at "+dst) {
		t.Errorf("err = %v, want the permission error saying the file stays at %s", err, dst)
	}
}
