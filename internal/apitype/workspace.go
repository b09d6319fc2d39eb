package apitype

import (
	"piweb/internal/cwdfs"
	"piweb/internal/gitx"
	"piweb/internal/terminal"
)

// The answers and requests of a session's workspace: its files,
// terminals and git worktrees.

// FileList is GET /api/sessions/{id}/files: a folder of the session's
// cwd, or Missing when the cwd is gone.
type FileList struct {
	Path    string        `json:"path"`
	Entries []cwdfs.Entry `json:"entries"`
	Missing bool          `json:"missing"`
}

// Upload is POST /api/sessions/{id}/upload's answer.
type Upload struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// TerminalList is GET /api/sessions/{id}/terminals.
type TerminalList struct {
	Enabled   bool            `json:"enabled"`
	Terminals []terminal.Info `json:"terminals"`
}

// StartTerminal is POST /api/sessions/{id}/terminals: the terminal's size.
type StartTerminal struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Worktrees is GET /api/sessions/{id}/worktrees.
type Worktrees struct {
	gitx.View
	Repo      *gitx.Repo      `json:"repo,omitempty"`
	Worktrees []gitx.Worktree `json:"worktrees"`
}

// AddWorktree is POST /api/sessions/{id}/worktrees: a new folder beside
// the main worktree, on a new branch.
type AddWorktree struct {
	Folder string `json:"folder"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
}

// RemoveWorktree is POST /api/sessions/{id}/worktrees/remove; Force removes
// one with uncommitted changes.
type RemoveWorktree struct {
	Path  string `json:"path"`
	Force bool   `json:"force"`
}

// RemoveAnswer says whether the worktree went, or that it holds
// uncommitted work and stays until the user confirms.
type RemoveAnswer struct {
	Removed bool `json:"removed"`
	Dirty   bool `json:"dirty"`
}

// Repos is GET /api/repos: every project folder in a git repository,
// mapped to it.
type Repos struct {
	Repos map[string]*gitx.Repo `json:"repos"`
}
