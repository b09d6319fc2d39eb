package apitype

import "time"

// The answers and requests of a session's workspace: its files,
// terminals and git worktrees.

// FileList is GET /api/sessions/{id}/files: a folder of the session's
// cwd, or Missing when the cwd is gone.
type FileList struct {
	Path    string      `json:"path"`
	Entries []FileEntry `json:"entries"`
	Missing bool        `json:"missing"`
}

// Upload is POST /api/sessions/{id}/upload's answer.
type Upload struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// TerminalList is GET /api/sessions/{id}/terminals.
type TerminalList struct {
	Enabled   bool           `json:"enabled"`
	Terminals []TerminalInfo `json:"terminals"`
}

// StartTerminal is POST /api/sessions/{id}/terminals: the terminal's size.
type StartTerminal struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Worktrees is GET /api/sessions/{id}/worktrees.
type Worktrees struct {
	GitView
	Repo      *Repo      `json:"repo,omitempty"`
	Worktrees []Worktree `json:"worktrees"`
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
	Repos map[string]*Repo `json:"repos"`
}

// FileEntry is one item of a directory listing.
type FileEntry struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"` // "dir", "file" or "other"
	Size     int64   `json:"size"`
	Modified *string `json:"modified"`
}

// TerminalInfo describes a live terminal.
type TerminalInfo struct {
	ID      string    `json:"id"`
	Owner   string    `json:"owner"`
	Cwd     string    `json:"cwd"`
	Started time.Time `json:"started"`
	PID     int       `json:"pid"`
}

// GitView is a folder's git state for the Changes panel: its Status when it
// is in a repository, else why not (Reason: no_git, not_repo, no_dir,
// timeout, unsafe_config) and a message for the user.
type GitView struct {
	Available bool       `json:"available"`
	Reason    string     `json:"reason,omitempty"`
	Message   string     `json:"message,omitempty"`
	Status    *GitStatus `json:"status,omitempty"`
}

// GitStatus is a working tree's state as `git status` sees it.
type GitStatus struct {
	// Root is the working tree's top folder; file paths are relative to it.
	Root string `json:"root"`
	// Branch is the checked-out branch, "" when HEAD is detached.
	Branch string `json:"branch"`
	// Head is HEAD's commit, "" before the first commit.
	Head string `json:"head"`
	// Upstream is the branch's upstream, "" without one; Ahead and
	// Behind count commits against it.
	Upstream string `json:"upstream"`
	Ahead    int    `json:"ahead"`
	Behind   int    `json:"behind"`
	// Files are the changed files, at most Options.MaxFiles; Total counts
	// them all.
	Files []GitFile `json:"files"`
	Total int       `json:"total"`
	// State is the operation git has in progress: "merge", "rebase",
	// "cherry-pick", "revert", or "" for none.
	State string `json:"state,omitempty"`
	// IgnoredConfig are the keys of the repository's own config that name
	// a command (core.fsmonitor, a filter, hooks...), which git ran
	// without (the panel says so).
	IgnoredConfig []string `json:"ignoredConfig,omitempty"`
}

// GitFile is one changed path. Staged and Unstaged are git's X and Y
// letters (M modified, A added, D deleted, R renamed, C copied, T type
// changed, U unmerged, . unchanged); an untracked file has "?" for both.
type GitFile struct {
	Path     string `json:"path"`
	OrigPath string `json:"origPath,omitempty"`
	Staged   string `json:"staged"`
	Unstaged string `json:"unstaged"`
	// Kind is "tracked", "renamed", "unmerged" or "untracked".
	Kind string `json:"kind"`
}

// Repo says which repository a folder belongs to.
type Repo struct {
	// Common is the repository's shared git folder: equal for every
	// worktree of one repository, so it groups them.
	Common string `json:"common"`
	// Root is this worktree's top folder; Name the repository's name
	// (its main worktree's folder name).
	Root string `json:"root"`
	Name string `json:"name"`
	// Branch is the checked-out branch, "HEAD" when detached.
	Branch string `json:"branch"`
}

// Worktree is one working tree of a repository.
type Worktree struct {
	Path   string `json:"path"`
	Head   string `json:"head"`
	Branch string `json:"branch"` // "" when detached
	Main   bool   `json:"main"`   // the repository's main worktree (listed first)
	Locked bool   `json:"locked"`
	// Prunable is set when its folder is gone.
	Prunable bool `json:"prunable"`
}

// GitDiff is one file's unified diff.
type GitDiff struct {
	Path string `json:"path"`
	// Text is git's unified diff, cut after Options.MaxDiff bytes
	// (Truncated); "" when the file does not differ.
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
	// Binary is set when git reports binary files differing.
	Binary bool `json:"binary"`
}

// GitCommit is one commit of GET /api/sessions/{id}/git/commits, and the
// answer of POST (the commit just made).
type GitCommit struct {
	Hash    string    `json:"hash"`
	Short   string    `json:"short"`
	Author  string    `json:"author"`
	Date    time.Time `json:"date"`
	Subject string    `json:"subject"`
}

// GitCommits is GET /api/sessions/{id}/git/commits: the last commits of
// HEAD, newest first.
type GitCommits struct {
	Commits []GitCommit `json:"commits"`
}

// GitCommitRequest is POST /api/sessions/{id}/git/commits: commit what is
// staged with Message.
type GitCommitRequest struct {
	Message string `json:"message"`
}

// GitPaths is POST /api/sessions/{id}/git/stage and /git/unstage: files
// relative to the working tree's top folder (as GitFile.Path).
type GitPaths struct {
	Paths []string `json:"paths"`
}

// GitDiscard is POST /api/sessions/{id}/git/discard: the unstaged changes
// of Paths are thrown away; an untracked path is deleted, and only with
// Untracked set (the user confirmed that twice).
type GitDiscard struct {
	Paths     []string `json:"paths"`
	Untracked bool     `json:"untracked"`
}

// FileMatches is GET /api/sessions/{id}/files/find: the paths of the
// session's folder matching a fuzzy query, best first, for the composer's
// "@" completion.
type FileMatches struct {
	Matches []FileMatch `json:"matches"`
	// Files counts the files listed in the folder; Partial says some
	// are missing from the list (Reason says why: too many, too slow,
	// folders that could not be read).
	Files   int    `json:"files"`
	Partial bool   `json:"partial"`
	Reason  string `json:"reason,omitempty"`
}

// FileMatch is one path relative to the session's folder; a folder's
// ends in "/" (Dir).
type FileMatch struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir"`
}
