package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// mountTmpfs mounts a tmpfs of size bytes at dir until the test ends.
func (h *harness) mountTmpfs(dir string, size int) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		h.t.Fatalf("mount tmpfs: %v", err)
	}
	h.t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// fill writes a file in dir until the file system is full, to the byte.
func fill(dir string) {
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		return
	}
	defer f.Close()
	for _, n := range []int{64 << 10, 4 << 10, 256, 1} {
		chunk := bytes.Repeat([]byte{'x'}, n)
		for {
			if _, err := f.Write(chunk); err != nil {
				break
			}
		}
	}
}

// mutations is every file operation run against a full or read-only
// folder: appends (rename, label, with lines longer than a page), fork,
// migrate, repair.
func mutations(v3, v1, damaged string) [][]string {
	long := strings.Repeat("n", 20000)
	return [][]string{
		{"rename", v3, "short"}, {"rename", v3, long}, {"label", v3, "00000005", long},
		{"label", v3, "00000007", "x"}, {"fork", v3, "--entry", "00000011"},
		{"migrate", v1}, {"check", "--repair", "--cwd", "/tmp/proj", damaged},
	}
}

// checkFiles compares files with their originals: intact, new bad lines.
func checkFiles(tl *tally, origs map[string][]byte) {
	for p, orig := range origs {
		tl.files++
		if intactSomewhere(p, orig) {
			tl.intact++
		} else {
			tl.note("%s lost its original bytes", filepath.Base(p))
		}
		b, _ := os.ReadFile(p)
		if extra := badLines(b) - badLines(orig); extra > 0 {
			tl.torn += extra
			tl.note("%s: %d new bad lines", filepath.Base(p), extra)
		}
	}
}

func snapshotFiles(paths ...string) map[string][]byte {
	out := map[string][]byte{}
	for _, p := range paths {
		out[p], _ = os.ReadFile(p)
	}
	return out
}

// fullDisk runs every mutation on a tmpfs filled to the byte: each may
// fail, none may tear a line, lose bytes or leave a temp file.
func (h *harness) fullDisk() *tally {
	tl := &tally{name: "full tmpfs"}
	root := filepath.Join(h.t.TempDir(), "mnt")
	h.mountTmpfs(root, 8<<20)
	agent, proj := h.newAgent(root)
	v3, _ := genSession(proj, 3, 100, 2000, "")
	v1, _ := genSession(proj, 1, 100, 2000, "")
	damaged := opFile("repair", proj)
	origs := snapshotFiles(v3, v1, damaged)
	fill(root)
	for _, args := range mutations(v3, v1, damaged) {
		tl.runs++
		if out, err := h.command(agent, args...).CombinedOutput(); err != nil {
			tl.failed++
			tl.note("%s: %s", args[0], firstLine(out))
		}
	}
	checkFiles(tl, origs)
	for _, p := range sessionFiles(agent) {
		if _, known := origs[p]; !known {
			b, _ := os.ReadFile(p)
			tl.torn += badLines(b)
		}
	}
	tl.leftovers, tl.backups = debris(agent, tl)
	return tl
}

// readOnly runs every mutation, and delete through the server, on a
// project folder mounted read-only (root ignores permission bits): all
// fail, nothing changes, and the trash keeps no copy or link.
func (h *harness) readOnly() *tally {
	tl := &tally{name: "read-only folder"}
	agent, proj := h.newAgent(h.t.TempDir())
	h.mountTmpfs(proj, 16<<20)
	v3, _ := genSession(proj, 3, 100, 2000, "")
	v1, _ := genSession(proj, 1, 100, 2000, "")
	damaged := opFile("repair", proj)
	origs := snapshotFiles(v3, v1, damaged)
	if err := syscall.Mount("", proj, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		h.t.Fatalf("remount read-only: %v", err)
	}
	for _, args := range mutations(v3, v1, damaged) {
		tl.runs++
		if err := h.command(agent, args...).Run(); err != nil {
			tl.failed++
		}
	}
	s := h.startServe(agent)
	for _, id := range s.ids("/api/sessions?limit=1000", "sessions", "id") {
		tl.runs++
		if code, b := s.do(context.Background(), "DELETE", "/api/sessions/"+id); code != 200 {
			tl.failed++
			if tl.failed == len(mutations(v3, v1, damaged))+1 {
				tl.note("delete: %d %s", code, firstLine(b))
			}
		}
	}
	s.stop()
	for p, orig := range origs {
		if b, _ := os.ReadFile(p); !bytes.Equal(b, orig) {
			tl.note("%s changed", filepath.Base(p))
			tl.lost++
		}
	}
	checkFiles(tl, origs)
	inTrash := 0
	for _, p := range sessionFiles(filepath.Join(agent, "trash")) {
		inTrash++
		tl.note("left in the trash: %s", p)
	}
	tl.dup += inTrash
	tl.leftovers, tl.backups = debris(agent, tl)
	return tl
}

// twoWriters appends pi-like lines (as pi in a terminal does) to a file
// while piweb renames, labels and repairs it; every appended line must
// be in the live file exactly once.
func (h *harness) twoWriters() *tally {
	tl := &tally{name: "two writers"}
	agent, proj := h.newAgent(h.t.TempDir())
	path, _ := genSession(proj, 3, 200, 2000, "")
	const lines = 400
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() { h.piWriter(path, lines); close(stop) })
	for i := 0; ; i++ {
		select {
		case <-stop:
			wg.Wait()
			return h.countMarkers(tl, agent, path, lines)
		default:
		}
		args := [][]string{{"rename", path, fmt.Sprintf("n%d", i)}, {"label", path, "00000005", fmt.Sprintf("l%d", i)},
			{"check", "--repair", "--cwd", "/tmp/proj", path}}[i%3]
		tl.runs++
		if err := h.command(agent, args...).Run(); err != nil {
			tl.failed++
		}
	}
}

// piWriter appends lines one O_APPEND write each, with a garbage line now
// and then (for repair to rewrite the file).
func (h *harness) piWriter(path string, lines int) {
	prev := "000000c8"
	for k := range lines {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return
		}
		id := fmt.Sprintf("w%07d", k)
		line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-12-01T11:00:00.000Z","message":{"role":"user","content":"marker-%d-end","timestamp":%d}}`+"\n", id, prev, k, k)
		if k%40 == 39 {
			line += "garbage {\n"
		}
		f.Write([]byte(line))
		f.Close()
		prev = id
		time.Sleep(2 * time.Millisecond)
	}
}

func (h *harness) countMarkers(tl *tally, agent, path string, lines int) *tally {
	b, _ := os.ReadFile(path)
	for k := range lines {
		tl.files++
		switch n := bytes.Count(b, fmt.Appendf(nil, `"marker-%d-end"`, k)); {
		case n == 0:
			tl.lost++
		case n > 1:
			tl.dup++
		default:
			tl.intact++
		}
	}
	if tl.lost > 0 {
		tl.note("%d of %d lines another process appended are not in the live file", tl.lost, lines)
	}
	if bad := badLines(b); bad > 0 {
		tl.note("%d bad lines in the live file (garbage the writer added and repair did not yet remove included)", bad)
	}
	tl.leftovers, tl.backups = debris(agent, tl)
	return tl
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	if len(line) > 160 {
		line = line[:160]
	}
	return string(line)
}

var _ = errors.New
