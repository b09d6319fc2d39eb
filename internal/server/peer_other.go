//go:build !linux

package server

import "net"

// PeerCheck reports whether this platform can tell which user owns the
// client end of a loopback connection; only Linux can (peer_linux.go).
func PeerCheck() bool { return false }

// ownPeer cannot tell here, so no connection counts as the owner's: serve
// requires sign-in on loopback too.
func ownPeer(local, remote net.Addr, uid int) bool { return false }
