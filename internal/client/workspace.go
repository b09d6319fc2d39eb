package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"piweb/internal/apitype"
)

// The routes of a session's workspace: its folder's files, git's view of
// it, and the repository's worktrees.

// Files is GET /api/sessions/{id}/files: the folder at path (relative to
// the session's cwd; "" is the cwd).
func (c *Client) Files(ctx context.Context, id, path string) (a apitype.FileList, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/files"+query("path", path)), nil, &a)
}

// GitStatus is GET /api/sessions/{id}/git/status.
func (c *Client) GitStatus(ctx context.Context, id string) (a apitype.GitView, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/git/status"), nil, &a)
}

// GitDiff is GET /api/sessions/{id}/git/diff of the file at path (relative
// to the repository's top folder), which is gitx.Staged, gitx.Unstaged or
// gitx.Untracked.
func (c *Client) GitDiff(ctx context.Context, id, path, which string) (a apitype.GitDiff, err error) {
	q := query("path", path, "which", which)
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/git/diff"+q), nil, &a)
}

// Worktrees is GET /api/sessions/{id}/worktrees.
func (c *Client) Worktrees(ctx context.Context, id string) (a apitype.Worktrees, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/worktrees"), nil, &a)
}

// AddWorktree is POST /api/sessions/{id}/worktrees.
func (c *Client) AddWorktree(ctx context.Context, id string, req apitype.AddWorktree) (a apitype.Worktree, err error) {
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

// File is GET /api/sessions/{id}/file: the file at path of the session's
// cwd, as it is, and the answer's headers (its type, its sandbox).
func (c *Client) File(ctx context.Context, id, path string) ([]byte, http.Header, error) {
	return c.Raw(ctx, http.MethodGet, sessionPath(id, "/file"+query("path", path)), nil)
}

// UploadOptions place an upload: Folder of the session's cwd ("" is the
// cwd), the file's Name, and Overwrite to replace a file of that name.
// Size, when above 0, is the body's length, sent so that the server
// refuses an oversized file before it comes (net/http knows the length
// of a bytes.Reader, strings.Reader or bytes.Buffer by itself).
type UploadOptions struct {
	Folder    string
	Name      string
	Overwrite bool
	Size      int64
}

// Upload is POST /api/sessions/{id}/upload: body, streamed, becomes the
// file.
func (c *Client) Upload(ctx context.Context, id string, o UploadOptions, body io.Reader) (a apitype.Upload, err error) {
	over := ""
	if o.Overwrite {
		over = "1"
	}
	path := sessionPath(id, "/upload"+query("path", o.Folder, "name", o.Name, "overwrite", over))
	req, err := c.request(ctx, http.MethodPost, path, body, http.Header{"Content-Type": {"application/octet-stream"}})
	if err != nil {
		return a, err
	}
	if o.Size > 0 {
		req.ContentLength = o.Size
	}
	resp, err := c.do(req)
	return a, decodeAnswer(resp, err, &a)
}

// Terminals is GET /api/sessions/{id}/terminals.
func (c *Client) Terminals(ctx context.Context, id string) (a apitype.TerminalList, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/terminals"), nil, &a)
}

// StartTerminal is POST /api/sessions/{id}/terminals: a shell in the
// session's cwd, of cols by rows.
func (c *Client) StartTerminal(ctx context.Context, id string, cols, rows int) (a apitype.TerminalInfo, err error) {
	body := apitype.StartTerminal{Cols: cols, Rows: rows}
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/terminals"), body, &a)
}

// CloseTerminal is DELETE /api/sessions/{id}/terminals/{tid}.
func (c *Client) CloseTerminal(ctx context.Context, id, tid string) error {
	return c.Do(ctx, http.MethodDelete, sessionPath(id, "/terminals/"+url.PathEscape(tid)), struct{}{}, nil)
}

// TerminalSocketURL is the WebSocket URL (ws: or wss:) of a running
// terminal, GET /api/sessions/{id}/terminals/{tid}/socket, for a
// WebSocket client with the Client's headers.
func (c *Client) TerminalSocketURL(id, tid string) string {
	u := c.base + c.onMachine(sessionPath(id, "/terminals/"+url.PathEscape(tid)+"/socket"))
	return "ws" + strings.TrimPrefix(u, "http")
}

// GitStage is POST /api/sessions/{id}/git/stage; it answers the new state.
func (c *Client) GitStage(ctx context.Context, id string, paths ...string) (a apitype.GitView, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/git/stage"), apitype.GitPaths{Paths: paths}, &a)
}

// GitUnstage is POST /api/sessions/{id}/git/unstage.
func (c *Client) GitUnstage(ctx context.Context, id string, paths ...string) (a apitype.GitView, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/git/unstage"), apitype.GitPaths{Paths: paths}, &a)
}

// GitDiscard is POST /api/sessions/{id}/git/discard.
func (c *Client) GitDiscard(ctx context.Context, id string, req apitype.GitDiscard) (a apitype.GitView, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/git/discard"), req, &a)
}

// GitCommits is GET /api/sessions/{id}/git/commits (limit 0: the server's
// default).
func (c *Client) GitCommits(ctx context.Context, id string, limit int) (a apitype.GitCommits, err error) {
	q := ""
	if limit > 0 {
		q = query("limit", strconv.Itoa(limit))
	}
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/git/commits"+q), nil, &a)
}

// GitCommit is POST /api/sessions/{id}/git/commits: commit what is staged.
func (c *Client) GitCommit(ctx context.Context, id, message string) (a apitype.GitCommit, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/git/commits"), apitype.GitCommitRequest{Message: message}, &a)
}

// FindFiles is GET /api/sessions/{id}/files/find: the "@" completion's
// paths matching q (limit 0: the server's default).
func (c *Client) FindFiles(ctx context.Context, id, q string, limit int) (a apitype.FileMatches, err error) {
	l := ""
	if limit > 0 {
		l = strconv.Itoa(limit)
	}
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/files/find"+query("q", q, "limit", l)), nil, &a)
}
