package apitype

import "time"

// Read-only share links (docs/decisions/0042): one session, or one branch
// of it, served as the HTML export's page at /share/TOKEN to whoever holds
// the link, until it expires or is revoked. piweb keeps the token's hash
// only: the link is in the answer that makes it, and nowhere else.

// Share is one live link as GET /api/shares lists it.
type Share struct {
	// ID names the link for DELETE /api/shares/{id}; it opens nothing.
	ID string `json:"id"`
	// Session is the session's API id.
	Session string `json:"session"`
	// Leaf, when not "", is the entry the shared branch ends at (the page
	// follows what continues from it); "" follows the session's leaf.
	Leaf    string    `json:"leaf,omitempty"`
	Title   string    `json:"title"` // the session's title when the link was made
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// Shares is GET /api/shares: the links not expired, newest first.
type Shares struct {
	Shares []Share `json:"shares"`
}

// ShareRequest is POST /api/shares.
type ShareRequest struct {
	Session string `json:"session"`
	// Branch shares only the branch ending at Leaf ("": the session's leaf
	// now) and what continues from it; false shares the session at its
	// leaf, whichever branch that is.
	Branch bool   `json:"branch,omitempty"`
	Leaf   string `json:"leaf,omitempty"`
	// Hours until the link expires: 0 is 7 days, at most 90 days.
	Hours int `json:"hours,omitempty"`
}

// NewShare is the answer of POST /api/shares: the link (Path, "/share/TOKEN"
// on this server's address), shown this once.
type NewShare struct {
	Share
	Path string `json:"path"`
	// LoopbackOnly says piweb listens on loopback only: the link opens on
	// this machine alone.
	LoopbackOnly bool `json:"loopbackOnly"`
}

// ShareVersion is GET /share/TOKEN/version: the state of the shared session's
// file, which the page compares with the one it shows.
type ShareVersion struct {
	Version string `json:"version"`
}
