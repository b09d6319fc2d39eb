package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/apitype"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// TestFilesMissingCwd: the root listing of a session whose folder is gone
// answers that it is missing; anything below it stays an error, and so do
// bad paths.
func TestFilesMissingCwd(t *testing.T) {
	r := newRig(t, Options{})
	dark := r.item("Dark theme")
	api, ctx := r.api(), t.Context()
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
			id := r.sessionIn(cwd)
			for _, q := range []string{"", "?path=", "?path=.", "?path=./"} {
				var got apitype.FileList
				err := api.Do(ctx, "GET", "/api/sessions/"+id+"/files"+q, nil, &got)
				want := apitype.FileList{Path: "", Entries: []cwdfs.Entry{}, Missing: true}
				if diff := cmp.Diff(want, got); err != nil || diff != "" {
					t.Errorf("files%s: %v (-want +got):\n%s", q, err, diff)
				}
			}
			for _, c := range []struct {
				what   string
				err    error
				status int
			}{
				{"files src", second(api.Files(ctx, id, "src")), 404},
				{"file README.md", third(api.File(ctx, id, "README.md")), 404},
				{"files/events", second(api.FileEvents(ctx, id, "", "")), 404},
				{"files ..", second(api.Files(ctx, id, "..")), 403},
				{"files /etc", second(api.Files(ctx, id, "/etc")), 403},
			} {
				wantErr(t, c.what, c.err, c.status, "")
			}
		})
	}
	if got, err := api.Files(ctx, dark.ID, ""); err != nil || got.Missing {
		t.Errorf("an existing folder: missing %v, %v", got.Missing, err)
	}
}

// sessionIn writes a one-message session with cwd into the folder of
// the demo's "Dark theme" session and waits until the server lists it.
func (r *rig) sessionIn(cwd string) string {
	r.t.Helper()
	id := pisession.NewSessionID()
	header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}`, id, cwd)
	body := `{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	if _, err := sessionstore.NewFile(filepath.Dir(r.item("Dark theme").Path), []byte(header+"\n"+body+"\n")); err != nil {
		r.t.Fatal(err)
	}
	r.sync()
	r.detail(id)
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
	testkit.WriteFile(t, filepath.Join(cwd, "ok.txt"), "fine")
	id := r.sessionIn(cwd)
	api, ctx := r.api(), t.Context()
	for _, name := range special {
		for route, err := range map[string]error{"/file": third(api.File(ctx, id, name)), "/files": second(api.Files(ctx, id, name))} {
			wantErr(t, route+" "+name, err, 400, "")
			if msg := errs.Message(err); !strings.Contains(msg, "not a regular file") {
				t.Errorf("%s %s: %q", route, name, msg)
			}
		}
	}
	if _, _, err := api.File(ctx, id, "ok.txt"); err != nil {
		t.Errorf("regular file: %v", err)
	}
	threads, fds := procCounts(t)
	for range 2000 {
		api.File(ctx, id, "pipe")
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
	status := testkit.ReadFile(t, "/proc/self/status")
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
	id := r.sessionIn("/")
	api, ctx := r.api(), t.Context()
	if got, err := api.Files(ctx, id, ""); err != nil || len(got.Entries) == 0 {
		t.Errorf("no entries in /: %v", err)
	}
	if _, err := api.Files(ctx, id, "etc"); err != nil {
		t.Error(err)
	}
	if _, _, err := api.File(ctx, id, "etc/passwd"); err != nil {
		t.Errorf("/etc/passwd: %v", err)
	}
	_, err := api.Files(ctx, id, "..")
	wantErr(t, "files ..", err, 403, "")
}
