//go:build !linux

package terminal

import (
	"os"
	"syscall"
)

// ptsName needs Linux's TIOCGPTN; without it Close reaches the
// terminal's holders through its session only.
func ptsName(*os.File) string { return "" }

// signalHolders sends sig to the shell's process group (without /proc,
// jobs in groups of their own are reached only by the terminal's hangup).
func signalHolders(sid int, _ string, sig syscall.Signal) { syscall.Kill(-sid, sig) }

// holdersAlive cannot tell without /proc; the hangup is all Close sends.
func holdersAlive(int, string) bool { return false }
