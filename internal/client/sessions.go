package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"piweb/internal/apitype"
)

// The browsing routes.

// ListOptions narrow GET /api/sessions; zero values are the server's
// defaults (every session, newest first).
type ListOptions struct {
	Project string // only the sessions of this cwd
	Text    string // only sessions whose text matches
	Sort    string // modified, created, name, messages or size
	Asc     bool
	Limit   int
	Offset  int
	// Archived is "hide" (the archive of GET /api/order left out) or
	// "only"; PinsFirst puts the pins before the others. With Archived the
	// answer counts Projects and Archived (the page's sidebar).
	Archived  string
	PinsFirst bool
	// Fleet lists every machine's sessions from the fleet database
	// (serve --fleet), each Item with its Machine; Machine then narrows
	// it to one machine's.
	Fleet   bool
	Machine string
}

// first is "first" when b, else "" (the parameter is left out).
func first(b bool) string {
	if b {
		return "first"
	}
	return ""
}

// flag is "1" when b, else "" (the parameter is left out).
func flag(b bool) string {
	if b {
		return "1"
	}
	return ""
}

// PageOptions choose a page of a session's context or entries: the path
// to Leaf (default the file's leaf), the items before the cursor Before
// (default all), at most Limit of them (0: all).
type PageOptions struct {
	Leaf   string
	Before string
	Limit  int
}

// SearchOptions are GET /api/search's parameters; Text is required and
// may hold filters (project:api after:2026-11-01 role:user ...). The
// filter fields are the same filters as parameters: Role user, assistant
// or tool (comma-separated), Branch current, abandoned or all, After and
// Before dates (YYYY-MM-DD) in TZ (an IANA zone, UTC when empty).
type SearchOptions struct {
	Text    string
	Project string
	Limit   int

	Role, Model, Branch, After, Before, TZ string

	// Fleet searches every machine's sessions (serve --fleet), each hit
	// with its Machine.
	Fleet bool
}

// UsageOptions are GET /api/usage's parameters: By is day (default),
// model, project or (with Fleet) machine; TZ an IANA zone; Days the last
// N calendar days; Fleet the whole fleet's usage (serve --fleet).
type UsageOptions struct {
	By    string
	TZ    string
	Days  int
	Fleet bool
	// Split splits by=day's rows by "model" or "project" (UsageRow.Group).
	Split string
	// Limit bounds UsageSessions' list (0: the server's default).
	Limit int
}

// itoa is n in decimal, "" for 0 (the parameter is left out).
func itoa(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// Status is GET /api/status.
func (c *Client) Status(ctx context.Context) (a apitype.Status, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/status", nil, &a)
}

// LeaveDemo is POST /api/demo/leave: piweb switches from its demo to the
// user's own sessions when they exist.
func (c *Client) LeaveDemo(ctx context.Context) (a apitype.Leave, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/demo/leave", struct{}{}, &a)
}

// SignOut is POST /api/signout: the Client's sign-in cookie is revoked.
func (c *Client) SignOut(ctx context.Context) error {
	return c.Do(ctx, http.MethodPost, "/api/signout", struct{}{}, nil)
}

// Sessions is GET /api/sessions.
func (c *Client) Sessions(ctx context.Context, o ListOptions) (a apitype.SessionList, err error) {
	order := ""
	if o.Asc {
		order = "asc"
	}
	q := query("project", o.Project, "q", o.Text, "sort", o.Sort, "order", order,
		"limit", itoa(o.Limit), "offset", itoa(o.Offset), "archived", o.Archived, "pinned", first(o.PinsFirst),
		"fleet", flag(o.Fleet), "machine", o.Machine)
	return a, c.Do(ctx, http.MethodGet, "/api/sessions"+q, nil, &a)
}

// FleetMachines is GET /api/fleet/machines (serve --fleet).
func (c *Client) FleetMachines(ctx context.Context) (a apitype.FleetMachines, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/fleet/machines", nil, &a)
}

// Projects is GET /api/projects.
func (c *Client) Projects(ctx context.Context) (a apitype.ProjectList, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/projects", nil, &a)
}

// Session is GET /api/sessions/{id}: its listing, header, tree, labels
// and fork family.
func (c *Client) Session(ctx context.Context, id string) (a apitype.SessionDetail, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, ""), nil, &a)
}

// Context is GET /api/sessions/{id}/context: a page of the messages pi
// would send the model.
func (c *Client) Context(ctx context.Context, id string, o PageOptions) (a apitype.Context, err error) {
	q := query("leaf", o.Leaf, "before", o.Before, "limit", itoa(o.Limit))
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/context"+q), nil, &a)
}

// Entries is GET /api/sessions/{id}/entries: a page of the entries on the
// path to the leaf.
func (c *Client) Entries(ctx context.Context, id string, o PageOptions) (a apitype.Entries, err error) {
	q := query("leaf", o.Leaf, "before", o.Before, "limit", itoa(o.Limit))
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/entries"+q), nil, &a)
}

// Changes is GET /api/sessions/{id}/changes.
func (c *Client) Changes(ctx context.Context, id string) (a apitype.Changes, err error) {
	return a, c.Do(ctx, http.MethodGet, sessionPath(id, "/changes"), nil, &a)
}

// Search is GET /api/search.
func (c *Client) Search(ctx context.Context, o SearchOptions) (a apitype.Search, err error) {
	q := query("q", o.Text, "project", o.Project, "limit", itoa(o.Limit), "role", o.Role, "model", o.Model,
		"branch", o.Branch, "after", o.After, "before", o.Before, "tz", o.TZ, "fleet", flag(o.Fleet))
	return a, c.Do(ctx, http.MethodGet, "/api/search"+q, nil, &a)
}

// Usage is GET /api/usage.
func (c *Client) Usage(ctx context.Context, o UsageOptions) (a apitype.Usage, err error) {
	q := query("by", o.By, "tz", o.TZ, "days", itoa(o.Days), "fleet", flag(o.Fleet), "split", o.Split)
	return a, c.Do(ctx, http.MethodGet, "/api/usage"+q, nil, &a)
}

// UsageSessions is GET /api/usage/sessions: the sessions' usage over
// o's period (TZ, Days, Limit), the most expensive first.
func (c *Client) UsageSessions(ctx context.Context, o UsageOptions) (a apitype.UsageSessions, err error) {
	q := query("tz", o.TZ, "days", itoa(o.Days), "limit", itoa(o.Limit))
	return a, c.Do(ctx, http.MethodGet, "/api/usage/sessions"+q, nil, &a)
}

// Export is GET /api/sessions/{id}/export: the session as format (jsonl,
// md or html); scope "branch" exports the current branch alone.
func (c *Client) Export(ctx context.Context, id, format, scope string) ([]byte, http.Header, error) {
	return c.Raw(ctx, http.MethodGet, sessionPath(id, "/export"+query("format", format, "scope", scope)), nil)
}

// ExportMany is POST /api/export: the sessions of ids (this machine's
// ids, other machines' refs ID@MACHINE) as one zip, each in format
// (jsonl, md or html).
func (c *Client) ExportMany(ctx context.Context, format string, ids ...string) ([]byte, http.Header, error) {
	return c.Raw(ctx, http.MethodPost, "/api/export", apitype.ExportRequest{IDs: ids, Format: format})
}

// The mutations.

// Rename is POST /api/sessions/{id}/rename.
func (c *Client) Rename(ctx context.Context, id, name string) (a apitype.SessionAnswer, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/rename"), apitype.RenameRequest{Name: &name}, &a)
}

// Label is POST /api/sessions/{id}/label; a nil label removes the entry's.
func (c *Client) Label(ctx context.Context, id, entryID string, label *string) (a apitype.LabelAnswer, err error) {
	body := apitype.LabelRequest{EntryID: entryID, Label: label}
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/label"), body, &a)
}

// Delete is DELETE /api/sessions/{id}: the session goes to the trash.
func (c *Client) Delete(ctx context.Context, id string) (a apitype.DeleteAnswer, err error) {
	return a, c.Do(ctx, http.MethodDelete, sessionPath(id, ""), struct{}{}, &a)
}

// Trash is GET /api/trash.
func (c *Client) Trash(ctx context.Context) (a apitype.TrashList, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/trash", nil, &a)
}

// Restore is POST /api/trash/{trashId}/restore.
func (c *Client) Restore(ctx context.Context, trashID string) (a apitype.SessionAnswer, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/trash/"+url.PathEscape(trashID)+"/restore", struct{}{}, &a)
}

// DeleteForever is DELETE /api/trash/{trashId}.
func (c *Client) DeleteForever(ctx context.Context, trashID string) error {
	return c.Do(ctx, http.MethodDelete, "/api/trash/"+url.PathEscape(trashID), struct{}{}, nil)
}

// Backups is GET /api/backups.
func (c *Client) Backups(ctx context.Context) (a apitype.BackupList, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/backups", nil, &a)
}

// Fork is POST /api/sessions/{id}/fork: a new session before the user
// message entryID.
func (c *Client) Fork(ctx context.Context, id, entryID string) (a apitype.NewSession, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/fork"), apitype.ForkRequest{EntryID: entryID}, &a)
}

// Clone is POST /api/sessions/{id}/clone: a new session of the path to
// leaf (empty: the session's leaf).
func (c *Client) Clone(ctx context.Context, id, leaf string) (a apitype.NewSession, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/clone"), apitype.CloneRequest{Leaf: leaf}, &a)
}

// CloneAs is POST /api/sessions/{id}/clone with every option: into
// another folder (req.Cwd), every branch (req.All).
func (c *Client) CloneAs(ctx context.Context, id string, req apitype.CloneRequest) (a apitype.NewSession, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/clone"), req, &a)
}

// ForkAs is POST /api/sessions/{id}/fork with every option: into another
// folder (req.Cwd).
func (c *Client) ForkAs(ctx context.Context, id string, req apitype.ForkRequest) (a apitype.NewSession, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/fork"), req, &a)
}

// Repair is POST /api/sessions/{id}/repair.
func (c *Client) Repair(ctx context.Context, id string) (a apitype.RepairResult, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/repair"), struct{}{}, &a)
}

// The agent.

// Create is POST /api/sessions: a new session, pi started on its first
// message.
func (c *Client) Create(ctx context.Context, req apitype.CreateRequest) (a apitype.Created, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/sessions", req, &a)
}

// Command is POST /api/sessions/{id}/commands: cmd is one of pi's RPC
// commands ({"type":"prompt",...}).
func (c *Client) Command(ctx context.Context, id string, cmd any) (a apitype.CommandAnswer, err error) {
	return a, c.Do(ctx, http.MethodPost, sessionPath(id, "/commands"), cmd, &a)
}
