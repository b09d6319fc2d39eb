package terminal

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ptsName is the path of the terminal side of master (/dev/pts/N), as
// /proc/PID/fd links name it; "" when the kernel does not tell.
func ptsName(master *os.File) string {
	c, err := master.SyscallConn()
	if err != nil {
		return ""
	}
	var n uint32
	var ierr error
	if err := c.Control(func(fd uintptr) { n, ierr = unix.IoctlGetUint32(int(fd), unix.TIOCGPTN) }); err != nil || ierr != nil {
		return ""
	}
	return "/dev/pts/" + strconv.Itoa(int(n))
}

// signalHolders sends sig to every process that has the terminal: those
// of session sid (the shell, its jobs' process groups, as an interactive
// shell gives each its own, and what they started that stayed on the
// terminal) and any other whose descriptors hold pts (a job that left
// the session with setsid but kept the terminal as its output).
func signalHolders(sid int, pts string, sig syscall.Signal) {
	syscall.Kill(-sid, sig)
	for _, pid := range holders(sid, pts) {
		if pid != sid {
			syscall.Kill(pid, sig)
		}
	}
}

// holdersAlive reports whether a process signalHolders reaches is still
// running; zombies count as ended.
func holdersAlive(sid int, pts string) bool { return len(holders(sid, pts)) > 0 }

// holders lists the running processes of session sid and those with a
// descriptor on pts (but piweb itself), found in /proc.
func holders(sid int, pts string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	self := os.Getpid() // holds the terminal side while starting a shell
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		state, s := stateAndSession(pid)
		if state == "" || state == "Z" {
			continue
		}
		if s == sid || holds(pid, pts) {
			out = append(out, pid)
		}
	}
	return out
}

// holds reports whether one of pid's descriptors is pts.
func holds(pid int, pts string) bool {
	if pts == "" {
		return false
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(dir + e.Name()); err == nil && l == pts {
			return true
		}
	}
	return false
}

// stateAndSession reads the state letter and session id of pid from
// /proc/PID/stat (fields 3 and 6, counted after the command name, which may
// hold spaces and parentheses); a session of -1 when pid is gone.
func stateAndSession(pid int) (string, int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", -1
	}
	f := bytes.Fields(b[i+1:]) // state, ppid, pgrp, session, ...
	if len(f) < 4 {
		return "", -1
	}
	n, err := strconv.Atoi(string(f[3]))
	if err != nil {
		return "", -1
	}
	return string(f[0]), n
}
