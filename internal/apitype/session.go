package apitype

import "encoding/json"

// The shapes of one session's content: its compact tree, the file
// changes of its tool calls, where the model's context differs from the
// file, and what Parse found wrong. session names these types (aliases).

// TreeNode is one entry of the compact tree GET /api/sessions/{id}
// answers: every entry with an id, its place in the tree, its preview and
// its label.
type TreeNode struct {
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Type      string  `json:"type"`
	Role      string  `json:"role,omitempty"`
	Timestamp string  `json:"timestamp"`
	Text      string  `json:"text"`
	Label     *string `json:"label"`
}

// ContextEdit tells the page that what the model sees of an entry differs
// from the file (a context_edit in effect, pi 1.x): the entry is left out
// (Omitted, e.g. an attempt pi retried) or its content replaced (the
// context's message already shows the replacement). Original is the
// message as written in the file, null for an entry that is not a message.
// BeforeID places an omitted entry: the context entry it precedes, null
// when it comes after the last one.
type ContextEdit struct {
	EntryID  string          `json:"entryId"`
	Omitted  bool            `json:"omitted"`
	BeforeID *string         `json:"beforeId,omitempty"`
	Original json.RawMessage `json:"original"`
}

// FileChange is one write or edit tool call of a session, with what its
// result said: what the session changed in its folder, as pi made it.
type FileChange struct {
	// EntryID is the assistant message holding the call; CallID the call.
	EntryID string `json:"entryId"`
	CallID  string `json:"callId"`
	// Tool is "write" or "edit"; Path is the path argument as pi got it
	// (relative to the session's cwd, or absolute).
	Tool string `json:"tool"`
	Path string `json:"path"`
	// Timestamp is the call's message time (Unix ms).
	Timestamp float64 `json:"timestamp"`
	// Content is a write's new content.
	Content *string `json:"content,omitempty"`
	// Edits are an edit's replacements; Diff is the diff pi computed for
	// it (its result's details.diff), "" when pi gave none.
	Edits []TextEdit `json:"edits,omitempty"`
	Diff  string     `json:"diff,omitempty"`
	// Done is set once the call has a result; Error when that failed.
	Done  bool `json:"done"`
	Error bool `json:"error"`
}

// TextEdit is one replacement of an edit call.
type TextEdit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// Problem is one finding of a session file's parse, tied to a 1-based
// line number (session.Problem, whose Kind names the defect).
type Problem struct {
	Line    int    `json:"line"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}
