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
	eachMember(sid, func(pid int, _ string) {
		if pid != sid {
			syscall.Kill(pid, sig)
		}
	})
}

// sessionAlive reports whether a process of session sid (the shell or a
// job) is still running; zombies count as ended.
func sessionAlive(sid int) bool {
	alive := false
	eachMember(sid, func(_ int, state string) { alive = alive || state != "Z" })
	return alive
}

// eachMember calls fn with the pid and state letter of every process in
// /proc whose session is sid.
func eachMember(sid int, fn func(pid int, state string)) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, s := stateAndSession(pid); s == sid {
			fn(pid, state)
		}
	}
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
