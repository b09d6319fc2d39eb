package terminal

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// signalSession sends sig to every process of session sid: the shell, its
// jobs' process groups (an interactive shell gives each its own) and
// whatever they started that stayed on the terminal. Processes are found
// in /proc by the session field of their stat line.
func signalSession(sid int, sig syscall.Signal) {
	syscall.Kill(-sid, sig)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == sid {
			continue
		}
		if sessionOf(pid) == sid {
			syscall.Kill(pid, sig)
		}
	}
}

// sessionAlive reports whether a process of session sid (the shell or a
// job) is still running; zombies count as ended.
func sessionAlive(sid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && sessionOf(pid) == sid && !zombie(pid) {
			return true
		}
	}
	return false
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	return len(f) == 0 || string(f[0]) == "Z"
}

// sessionOf reads the session id of pid from /proc/PID/stat (field 6,
// counted after the command name, which may hold spaces and parentheses).
func sessionOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:]) // state, ppid, pgrp, session, ...
	if len(f) < 4 {
		return -1
	}
	n, err := strconv.Atoi(string(f[3]))
	if err != nil {
		return -1
	}
	return n
}
