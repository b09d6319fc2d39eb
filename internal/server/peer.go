package server

import "piweb/internal/access"

// Loopback is not a boundary: every user of the machine (and every
// container sharing its network namespace) can connect to 127.0.0.1. On
// Linux the kernel's socket tables say which uid owns the client end of a
// loopback connection (internal/access), so piweb serves only its own user
// there, without asking that user for anything. Every client is checked,
// whatever its source address (Linux delivers a connection to 127.0.0.1
// from any of the machine's addresses): a client of another user, or whose
// owner cannot be told, is refused when no sign-in is set up, otherwise it
// must sign in like any remote client.
// Serve's connections carry their addresses (access.ConnContext);
// requests that did not come through Serve (tests' handlers) are not
// peers. Elsewhere PeerCheck is false and serve requires sign-in on
// loopback too (a printed link).

// PeerCheck reports whether this platform can tell which user owns the
// client end of a loopback connection (serve requires sign-in on loopback
// where it cannot).
func PeerCheck() bool { return access.PeerSupported() }
