package client

import (
	"context"
	"net/http"

	"piweb/internal/apitype"
	"piweb/internal/gitx"
)

// The routes of a session's workspace: its folder's files, git's view of
// it, and the repository's worktrees.

// Files is GET /api/sessions/{id}/files: the folder at path (relative to
// the session's cwd; "" is the cwd).
func (c *Client) Files(ctx context.Context, id, path string) (a apitype.FileList, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/files"+query("path", path)), nil, &a)
}

// GitStatus is GET /api/sessions/{id}/git/status.
func (c *Client) GitStatus(ctx context.Context, id string) (a gitx.View, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/git/status"), nil, &a)
}

// GitDiff is GET /api/sessions/{id}/git/diff of the file at path (relative
// to the repository's top folder), which is gitx.Staged, gitx.Unstaged or
// gitx.Untracked.
func (c *Client) GitDiff(ctx context.Context, id, path, which string) (a gitx.Diff, err error) {
	q := query("path", path, "which", which)
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/git/diff"+q), nil, &a)
}

// Worktrees is GET /api/sessions/{id}/worktrees.
func (c *Client) Worktrees(ctx context.Context, id string) (a apitype.Worktrees, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/worktrees"), nil, &a)
}

// AddWorktree is POST /api/sessions/{id}/worktrees.
func (c *Client) AddWorktree(ctx context.Context, id string, req apitype.AddWorktree) (a gitx.Worktree, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/worktrees"), req, &a)
}

// RemoveWorktree is POST /api/sessions/{id}/worktrees/remove.
func (c *Client) RemoveWorktree(ctx context.Context, id string, req apitype.RemoveWorktree) (a apitype.RemoveAnswer, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/worktrees/remove"), req, &a)
}

// Repos is GET /api/repos.
func (c *Client) Repos(ctx context.Context) (a apitype.Repos, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/repos", nil, &a)
}
