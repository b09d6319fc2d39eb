package pitest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ChildProcesses lists the live (not zombie) children of process ppid, as
// "pid comm", read from /proc: tests use it to prove that stopping piweb
// leaves no pi behind. It skips the test where there is no /proc.
func ChildProcesses(t testing.TB, ppid int) []string {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	parent := strconv.Itoa(ppid)
	var out []string
	for _, d := range dirs {
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(stat)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) > 1 && f[1] == parent && f[0] != "Z" {
			out = append(out, d.Name()+" "+s[strings.IndexByte(s, '(')+1:end])
		}
	}
	return out
}

// ChildrenLeft waits up to timeout for process ppid to have no live
// children and returns those still there then (none is the good answer).
func ChildrenLeft(t testing.TB, ppid int, timeout time.Duration) []string {
	t.Helper()
	kids := ChildProcesses(t, ppid)
	for deadline := time.Now().Add(timeout); len(kids) > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		kids = ChildProcesses(t, ppid)
	}
	return kids
}
