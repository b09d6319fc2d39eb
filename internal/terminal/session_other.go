//go:build !linux

package terminal

import "syscall"

// signalSession sends sig to the shell's process group (without /proc,
// jobs in groups of their own are reached only by the terminal's hangup).
func signalSession(sid int, sig syscall.Signal) { syscall.Kill(-sid, sig) }

// sessionAlive cannot tell without /proc; the hangup is all Close sends.
func sessionAlive(int) bool { return false }
