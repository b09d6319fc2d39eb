package pitest

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// ChildProcesses lists the live (not zombie) children of process ppid, as
// "pid comm", read from /proc: tests use it to prove that stopping piweb
// leaves no pi behind. A postgres is not listed: it is the test package's
// own throwaway database server (internal/pgtest), a child of the test
// process for the whole package. It skips the test where there is no /proc.
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
		comm := s[strings.IndexByte(s, '(')+1 : end]
		if len(f) > 1 && f[1] == parent && f[0] != "Z" && comm != "postgres" {
			out = append(out, d.Name()+" "+comm)
		}
	}
	return out
}

// LoginPis lists this test process's children that lead a terminal
// session and run node: the pis running `pi auth login` on a PTY (pi
// renames its process "pi"; agents' pis lead no session). The shells of
// terminal tests running beside it lead sessions too, and are not listed.
func LoginPis(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, kid := range ChildProcesses(t, os.Getpid()) {
		pid := strings.Fields(kid)[0]
		stat, _ := os.ReadFile("/proc/" + pid + "/stat")
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])) // state ppid pgrp session ...
		if comm := strings.Fields(kid)[1]; len(f) > 3 && f[3] == pid && (comm == "pi" || comm == "node") {
			out = append(out, kid)
		}
	}
	return out
}

// NoChildren waits up to timeout for process ppid to have no live children
// (testkit.Eventually), failing the test with those still there: tests use
// it to prove that stopping piweb leaves no pi behind.
func NoChildren(t testing.TB, ppid int, timeout time.Duration) {
	t.Helper()
	testkit.Eventually(t, func() error {
		if kids := ChildProcesses(t, ppid); len(kids) > 0 {
			return fmt.Errorf("processes left: %v", kids)
		}
		return nil
	}, timeout, fmt.Sprintf("process %d to have no children", ppid))
}

// SomeChildren waits up to timeout for process ppid to have a live child
// and returns its children then.
func SomeChildren(t testing.TB, ppid int, timeout time.Duration) []string {
	t.Helper()
	var kids []string
	testkit.Eventually(t, func() bool {
		kids = ChildProcesses(t, ppid)
		return len(kids) > 0
	}, timeout, fmt.Sprintf("process %d to start a child", ppid))
	return kids
}

// Terminate sends the started cmd SIGTERM and waits up to timeout for it
// to exit, failing the test unless it exits 0 in time; what names it in
// the failure.
func Terminate(t testing.TB, cmd *exec.Cmd, what string, timeout time.Duration) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("%s after SIGTERM: %v", what, err)
		}
	case <-time.After(timeout):
		t.Fatalf("%s did not exit within %v of SIGTERM", what, timeout)
	}
}
