package server

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/session"
)

// TestFilesMissingCwd: the root listing of a session whose folder is gone
// answers that it is missing; anything below it stays an error, and so do
// bad paths.
func TestFilesMissingCwd(t *testing.T) {
	r := newRig(t, Options{})
	dark := r.find("Dark theme")
	file := filepath.Join(r.d.Root, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cwds := map[string]string{
		"gone":         filepath.Join(r.d.Root, "gone"),
		"under a file": filepath.Join(file, "x"),
		"relative":     "proj",
	}
	for name, cwd := range cwds {
		t.Run(name, func(t *testing.T) {
			id := newSessionIn(t, r, filepath.Dir(dark["path"].(string)), cwd)
			base := "/api/sessions/" + id
			for _, q := range []string{"", "?path=", "?path=.", "?path=./"} {
				got := r.json("GET", base+"/files"+q, nil, 200)
				want := map[string]any{"path": "", "entries": []any{}, "missing": true}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("files%s (-want +got):\n%s", q, diff)
				}
			}
			for _, c := range []struct {
				url    string
				status int
			}{
				{"/files?path=src", 404}, {"/file?path=README.md", 404}, {"/files/events", 404},
				{"/files?path=..", 403}, {"/files?path=/etc", 403},
			} {
				r.json("GET", base+c.url, nil, c.status)
			}
		})
	}
	if got := r.json("GET", "/api/sessions/"+dark["id"].(string)+"/files", nil, 200); got["missing"] != false {
		t.Errorf("an existing folder: missing %v", got["missing"])
	}
}

// newSessionIn writes a one-message session with cwd into dir and waits
// until the server lists it.
func newSessionIn(t *testing.T, r *rig, dir, cwd string) string {
	t.Helper()
	id := session.NewSessionID()
	header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}`, id, cwd)
	body := `{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	if _, err := session.NewFile(dir, []byte(header+"\n"+body+"\n")); err != nil {
		t.Fatal(err)
	}
	r.sync()
	r.json("GET", "/api/sessions/"+id, nil, 200)
	return id
}

// TestSpecialFiles: a FIFO and a device node in a session's folder answer
// at once with a clear error (opening them would block or never end), and
// 2,000 requests to a FIFO leave the server's threads and fds as they were.
func TestSpecialFiles(t *testing.T) {
	r := newRig(t, Options{})
	r.ts.Client().Timeout = 10 * time.Second
	cwd := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(cwd, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	special := []string{"pipe"}
	if os.Geteuid() == 0 { // a node like /dev/zero: reads never end
		if err := syscall.Mknod(filepath.Join(cwd, "zero"), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
			t.Fatal(err)
		}
		special = append(special, "zero")
	}
	if err := os.WriteFile(filepath.Join(cwd, "ok.txt"), []byte("fine"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "/api/sessions/" + newSessionIn(t, r, filepath.Dir(r.find("Dark theme")["path"].(string)), cwd)
	for _, name := range special {
		for _, route := range []string{"/file", "/files"} {
			got := r.json("GET", base+route+"?path="+name, nil, 400)
			if msg := got["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "not a regular file") {
				t.Errorf("%s %s: %q", route, name, msg)
			}
		}
	}
	if resp := r.do("GET", base+"/file?path=ok.txt", nil); resp.StatusCode != 200 {
		t.Errorf("regular file: %d", resp.StatusCode)
	}
	threads, fds := procCounts(t)
	for range 2000 {
		resp := r.do("GET", base+"/file?path=pipe", nil)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	r.ts.CloseClientConnections()
	threads2, fds2 := procCounts(t)
	if threads2 > threads+4 || fds2 > fds+4 {
		t.Errorf("after 2,000 FIFO requests: threads %d -> %d, fds %d -> %d", threads, threads2, fds, fds2)
	}
}

// procCounts returns this process's OS threads and open fds.
func procCounts(t testing.TB) (threads, fds int) {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, found := strings.CutPrefix(line, "Threads:"); found {
			threads, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return threads, len(ents)
}

// TestFilesRootCwd: a session whose cwd is / can list and open its files.
func TestFilesRootCwd(t *testing.T) {
	r := newRig(t, Options{})
	base := "/api/sessions/" + newSessionIn(t, r, filepath.Dir(r.find("Dark theme")["path"].(string)), "/")
	if got := r.json("GET", base+"/files", nil, 200); len(got["entries"].([]any)) == 0 {
		t.Error("no entries in /")
	}
	r.json("GET", base+"/files?path=etc", nil, 200)
	if resp := r.do("GET", base+"/file?path=etc/passwd", nil); resp.StatusCode != 200 {
		t.Errorf("/etc/passwd: %d", resp.StatusCode)
	}
	r.json("GET", base+"/files?path=..", nil, 403)
}
