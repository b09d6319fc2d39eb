// Package access decides who may reach piweb's server. It has three parts,
// each usable alone; internal/server puts them together (the HTTP side:
// cookie attributes, headers, status codes).
//
// Host names (Hosts, HostsFor), against DNS rebinding (a name some other
// site made point here): loopback names and addresses always, the listen
// host, the names serve's --host adds, and for a listen address beyond
// loopback this machine's hostname (and for a wildcard listen its interface
// addresses).
//
// The OS user of a loopback client (ConnContext, OtherUser): loopback is not
// a boundary (every user of the machine, and every container sharing its
// network namespace, can connect to 127.0.0.1), so the server serves only
// its own user there. The owner of the client's socket is found once per
// connection and kept on its context. Linux can tell (sock_diag over
// netlink, else the kernel's /proc/net/tcp tables); elsewhere PeerSupported
// is false.
//
// Sign-in secrets (Keys, Throttle), beyond loopback and on loopback where
// the platform cannot tell the OS user of a client. Two secrets open the
// server:
//
//   - A token the user chose (--token). The user can type it again, so it
//     stays valid for the server's life: as "Authorization: Bearer T" and
//     as the login link /auth?token=T, any number of times. Beyond
//     loopback it must be at least MinToken characters.
//   - One-time login links, when the user chose none. piweb prints
//     /auth?token=L; L works once and is exchanged for the session cookie,
//     so a link left in a terminal's scrollback, a shell history or a
//     proxy log cannot sign in anyone else later.
//
// The cookie holds neither secret: its issue time, a random nonce and their
// HMAC under a key made at start, so a restart signs every browser out.
// Keys checks the issue time (CookieAge) and the nonces revoked by sign-out.
// Wrong tokens are counted per client (ClientKey: its address, IPv6 by /64,
// X-Forwarded-For only from a trusted proxy) by a Throttle of bounded size.
package access
