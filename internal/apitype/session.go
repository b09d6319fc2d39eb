package apitype

import "piweb/pisession"

// The shapes of one session's content: its compact tree, the file
// changes of its tool calls, where the model's context differs from the
// file, and what Parse found wrong.

// TreeNode, ContextEdit, FileChange and TextEdit are defined by the
// public session library, piweb/pisession, whose shapes the API answers
// as they are.
type (
	TreeNode    = pisession.TreeNode
	ContextEdit = pisession.ContextEdit
	FileChange  = pisession.FileChange
	TextEdit    = pisession.TextEdit
)

// Problem is one finding of a session file's parse, tied to a 1-based
// line number (session.Problem, whose Kind names the defect).
type Problem struct {
	Line    int    `json:"line"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}
