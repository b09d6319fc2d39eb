package apitype

import ()

// The requests that change a session file, and their answers.

// RenameRequest is POST /api/sessions/{id}/rename. Name must be a non-empty
// string.
type RenameRequest struct {
	Name *string `json:"name"`
}

// LabelRequest is POST /api/sessions/{id}/label; a nil or blank Label
// removes the entry's label.
type LabelRequest struct {
	EntryID string  `json:"entryId"`
	Label   *string `json:"label"`
}

// ForkRequest is POST /api/sessions/{id}/fork: the entry to fork before,
// and the folder of the new session (empty: the source's).
type ForkRequest struct {
	EntryID string `json:"entryId"`
	Cwd     string `json:"cwd,omitempty"`
}

// CloneRequest is POST /api/sessions/{id}/clone: the leaf to clone up to
// (empty: the session's leaf), or with All every branch; Cwd is the
// folder of the new session (empty: the source's). A session whose
// folder is gone goes on in another one this way, as pi's "fork into"
// the current folder does (decision 0034).
type CloneRequest struct {
	Leaf string `json:"leaf"`
	Cwd  string `json:"cwd,omitempty"`
	All  bool   `json:"all,omitempty"`
}

// SessionAnswer is the answer of the mutations that report the session
// (rename, restore); Session is null when it is not listed.
type SessionAnswer struct {
	Session *Item `json:"session"`
}

// LabelAnswer is POST /api/sessions/{id}/label.
type LabelAnswer struct {
	Session *Item             `json:"session"`
	Labels  map[string]string `json:"labels"`
}

// DeleteAnswer is DELETE /api/sessions/{id}.
type DeleteAnswer struct {
	TrashID string `json:"trashId"`
	Session Item   `json:"session"`
}

// TrashItem is one item of GET /api/trash.
type TrashItem struct {
	TrashID string `json:"trashId"`
	Deleted string `json:"deleted"`
	Session Item   `json:"session"`
}

// TrashList is GET /api/trash.
type TrashList struct {
	Items []TrashItem `json:"items"`
}

// NewSession is the answer of fork and clone: the new session, and for a
// fork the text of the message it was made before.
type NewSession struct {
	ID   string  `json:"id"`
	Path string  `json:"path"`
	Text *string `json:"text,omitempty"`
}

// BackupList is the answer of GET /api/backups.
type BackupList struct {
	Backups []Backup `json:"backups"`
	// MaxAgeDays is the pruning rule: backups older than this are removed
	// when piweb starts.
	MaxAgeDays int `json:"maxAgeDays"`
}

// RepairResult answers POST /api/sessions/{id}/repair: what the repair
// changed (as `piweb check --repair` prints it) and where the original
// was kept (relative to the agent dir, or only its file name when the
// session lies elsewhere: never a full path); both empty when the file had
// nothing to repair.
type RepairResult struct {
	Changes []string `json:"changes"`
	Backup  string   `json:"backup"`
	Session any      `json:"session"`
}
