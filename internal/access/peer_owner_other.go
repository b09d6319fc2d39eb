//go:build !linux

package access

import "net"

// PeerSupported reports whether this platform can tell which user owns the
// client end of a loopback connection; only Linux can (peer_owner_linux.go).
func PeerSupported() bool { return false }

// Owns cannot tell here, so no connection counts as the owner's: serve
// requires sign-in on loopback too.
func Owns(local, remote net.Addr, uid int) bool { return false }
