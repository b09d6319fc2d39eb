//go:build !linux

// Package peercred tells which OS user owns the client end of a TCP
// connection made on this machine; only Linux can tell.
package peercred

import "net"

// Supported reports whether this platform can tell which user owns the
// client end of a loopback connection; only Linux can (owner_linux.go).
func Supported() bool { return false }

// Owns cannot tell here, so no connection counts as the owner's: serve
// requires sign-in on loopback too.
func Owns(local, remote net.Addr, uid int) bool { return false }
