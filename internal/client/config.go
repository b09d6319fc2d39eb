package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"piweb/internal/apitype"
)

// The routes of pi's configuration (settings, credentials, models,
// resources, trust, account sign-in) and piweb's own (preferences, Web
// Push, read marks).

// Config is GET /api/config; cwd (optional) adds that project's settings
// and trust.
func (c *Client) Config(ctx context.Context, cwd string) (a apitype.ConfigView, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/config"+query("cwd", cwd), nil, &a)
}

// PutSettings is PUT /api/config/settings; the answer is the config after.
func (c *Client) PutSettings(ctx context.Context, req apitype.SettingsChange) (a apitype.ConfigView, err error) {
	return a, c.Do(ctx, http.MethodPut, "/api/config/settings", req, &a)
}

// PutKey is PUT /api/config/auth/{provider}: store an API key.
func (c *Client) PutKey(ctx context.Context, provider string, req apitype.KeyChange) (a apitype.AuthFile, err error) {
	return a, c.Do(ctx, http.MethodPut, "/api/config/auth/"+url.PathEscape(provider), req, &a)
}

// DeleteKey is DELETE /api/config/auth/{provider}: forget a credential.
func (c *Client) DeleteKey(ctx context.Context, provider string) (a apitype.AuthFile, err error) {
	return a, c.Do(ctx, http.MethodDelete, "/api/config/auth/"+url.PathEscape(provider), struct{}{}, &a)
}

// TestModel is POST /api/config/test: one short request to the model.
func (c *Client) TestModel(ctx context.Context, req apitype.ModelTestRequest) (a apitype.ModelTest, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/config/test", req, &a)
}

// Models is GET /api/models.
func (c *Client) Models(ctx context.Context) (a apitype.ModelList, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/models", nil, &a)
}

// ModelsConfig is GET /api/models-config: models.json.
func (c *Client) ModelsConfig(ctx context.Context) (a apitype.ModelsFile, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/models-config", nil, &a)
}

// PutModelsConfig is PUT /api/models-config; the answer is models.json after.
func (c *Client) PutModelsConfig(ctx context.Context, req apitype.ModelsConfig) (a apitype.ModelsFile, err error) {
	return a, c.Do(ctx, http.MethodPut, "/api/models-config", req, &a)
}

// Resources is GET /api/config/resources for the folder cwd.
func (c *Client) Resources(ctx context.Context, cwd string) (a apitype.ResourceList, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/config/resources"+query("cwd", cwd), nil, &a)
}

// PutResource is PUT /api/config/resources; the answer is pi's states after.
func (c *Client) PutResource(ctx context.Context, req apitype.ResourceToggle) (a apitype.ResourceStates, err error) {
	return a, c.Do(ctx, http.MethodPut, "/api/config/resources", req, &a)
}

// PutMCP is PUT /api/config/mcp; the answer is the installed list after.
func (c *Client) PutMCP(ctx context.Context, req apitype.MCPToggle) (a []apitype.Installed, err error) {
	return a, c.Do(ctx, http.MethodPut, "/api/config/mcp", req, &a)
}

// AddPiwebMCP is POST /api/config/mcp/piweb; the answer is the installed
// list after.
func (c *Client) AddPiwebMCP(ctx context.Context, req apitype.AddPiwebMCP) (a []apitype.Installed, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/config/mcp/piweb", req, &a)
}

// Package is POST /api/config/packages: pi install or pi remove.
func (c *Client) Package(ctx context.Context, req apitype.PackageRequest) (a apitype.PackageRun, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/config/packages", req, &a)
}

// Trust is GET /api/trust: whether pi trusts the folder cwd (for session
// id, when not "").
func (c *Client) Trust(ctx context.Context, cwd, id string) (a apitype.ProjectTrust, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/trust"+query("cwd", cwd, "session", id), nil, &a)
}

// SetTrust is POST /api/trust.
func (c *Client) SetTrust(ctx context.Context, req apitype.TrustRequest) (a apitype.ProjectTrust, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/trust", req, &a)
}

// signInPath is the path of a provider's account sign-in.
func signInPath(provider, rest string) string {
	return "/api/config/signin/" + url.PathEscape(provider) + rest
}

// StartSignIn is POST /api/config/signin/{provider}: pi auth login starts.
func (c *Client) StartSignIn(ctx context.Context, provider string) (a apitype.SignInState, err error) {
	return a, c.Do(ctx, http.MethodPost, signInPath(provider, ""), struct{}{}, &a)
}

// SignIn is GET /api/config/signin/{provider}: the sign-in's state once
// it is past sequence number after (the server waits a while for it).
func (c *Client) SignIn(ctx context.Context, provider string, after uint64) (a apitype.SignInState, err error) {
	q := query("after", strconv.FormatUint(after, 10))
	return a, c.Do(ctx, http.MethodGet, signInPath(provider, q), nil, &a)
}

// AnswerSignIn is POST /api/config/signin/{provider}/answer: one line to
// pi's terminal.
func (c *Client) AnswerSignIn(ctx context.Context, provider, text string) (a apitype.SignInState, err error) {
	return a, c.Do(ctx, http.MethodPost, signInPath(provider, "/answer"), apitype.SignInAnswer{Text: text}, &a)
}

// CancelSignIn is DELETE /api/config/signin/{provider}.
func (c *Client) CancelSignIn(ctx context.Context, provider string) (a apitype.SignInState, err error) {
	return a, c.Do(ctx, http.MethodDelete, signInPath(provider, ""), struct{}{}, &a)
}

// Prefs is GET /api/prefs.
func (c *Client) Prefs(ctx context.Context) (a apitype.Prefs, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/prefs", nil, &a)
}

// PutPrefs is PUT /api/prefs; the answer is the preferences after.
func (c *Client) PutPrefs(ctx context.Context, req apitype.PrefsChange) (a apitype.Prefs, err error) {
	return a, c.Do(ctx, http.MethodPut, "/api/prefs", req, &a)
}

// PushKey is GET /api/push/key: the VAPID public key.
func (c *Client) PushKey(ctx context.Context) (a apitype.PushKey, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/push/key", nil, &a)
}

// PushSubscribe is POST /api/push/subscribe.
func (c *Client) PushSubscribe(ctx context.Context, sub apitype.PushSubscription) error {
	return c.Do(ctx, http.MethodPost, "/api/push/subscribe", sub, nil)
}

// PushUnsubscribe is POST /api/push/unsubscribe.
func (c *Client) PushUnsubscribe(ctx context.Context, endpoint string) error {
	return c.Do(ctx, http.MethodPost, "/api/push/unsubscribe", apitype.PushUnsubscribe{Endpoint: endpoint}, nil)
}

// Attention is GET /api/attention: the read marks and mutes.
func (c *Client) Attention(ctx context.Context) (a apitype.AttentionAnswer, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/attention", nil, &a)
}

// UnreadCount is GET /api/attention?only=unread: the count of unread
// sessions of the sidebar's listing, without the marks.
func (c *Client) UnreadCount(ctx context.Context) (n int, err error) {
	var a apitype.UnreadCount
	return a.Unread, c.Do(ctx, http.MethodGet, "/api/attention?only=unread", nil, &a)
}

// MarkRead is POST /api/attention/read.
func (c *Client) MarkRead(ctx context.Context, ids ...string) (a apitype.AttentionAnswer, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/attention/read", apitype.ReadRequest{IDs: ids}, &a)
}

// MarkAllRead is POST /api/attention/read with all: every unread session
// of the sidebar's listing.
func (c *Client) MarkAllRead(ctx context.Context) (a apitype.AttentionAnswer, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/attention/read", apitype.ReadRequest{All: true}, &a)
}

// Mute is POST /api/attention/mute: one session's, or with id "" every
// session's.
func (c *Client) Mute(ctx context.Context, id string, muted bool) (a apitype.AttentionAnswer, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/attention/mute", apitype.MuteRequest{ID: id, Muted: muted}, &a)
}

// Order is GET /api/order: the pins and archive.
func (c *Client) Order(ctx context.Context) (a apitype.Order, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/order", nil, &a)
}

// SetOrder is POST /api/order: pin or unpin, archive or restore many
// sessions at once.
func (c *Client) SetOrder(ctx context.Context, req apitype.OrderChange) (a apitype.Order, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/order", req, &a)
}

// Shares is GET /api/shares: the live read-only share links.
func (c *Client) Shares(ctx context.Context) (a apitype.Shares, err error) {
	return a, c.Do(ctx, http.MethodGet, "/api/shares", nil, &a)
}

// Share is POST /api/shares: a new read-only link to a session or one of
// its branches (its Path holds the token, given this once).
func (c *Client) Share(ctx context.Context, req apitype.ShareRequest) (a apitype.NewShare, err error) {
	return a, c.Do(ctx, http.MethodPost, "/api/shares", req, &a)
}

// RevokeShare is DELETE /api/shares/{id}.
func (c *Client) RevokeShare(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, "/api/shares/"+url.PathEscape(id), struct{}{}, nil)
}
