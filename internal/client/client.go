// Package client is a typed Go client for piweb's own HTTP API
// (docs/api.md): one method per route, the answers of internal/apitype,
// and every error answer as an *Error. Tests drive the server through it,
// and so can another piweb (a fleet) that talks to this machine's.
//
// A Client is safe for concurrent use. It follows the API's contract:
// request bodies are JSON, answers are JSON, and a failure is
// {"error":{"code","message"}} with the status of its kind.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Options configures a Client. The zero value is usable.
type Options struct {
	// HTTPClient sends the requests (default http.DefaultClient): its
	// transport, timeouts and cookie jar are the caller's.
	HTTPClient *http.Client
	// Header is sent with every request, for instance a fleet key or a
	// signed-in cookie; the Client never changes it.
	Header http.Header
}

// Client talks to one piweb.
type Client struct {
	base   string
	hc     *http.Client
	header http.Header
}

// New returns a Client for the piweb at baseURL ("http://127.0.0.1:30141";
// a trailing slash is ignored).
func New(baseURL string, opts Options) *Client {
	hc := opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: hc, header: opts.Header.Clone()}
}

// Error is an error answer of the API: its HTTP status, its code (Kind:
// "not_found", "stale", ...) and the message meant for the user. An
// answer that is not the API's error shape (a proxy's page) has Kind ""
// and the start of its body as Message.
type Error struct {
	Status  int
	Kind    string
	Message string
}

func (e *Error) Error() string {
	if e.Kind == "" {
		return fmt.Sprintf("piweb: status %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("piweb: %s (%d): %s", e.Kind, e.Status, e.Message)
}

// StatusOf is err's HTTP status when it is an *Error, else 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// KindOf is err's code ("not_found") when it is an *Error, else "".
func KindOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// Do sends a request to path (with its query, if any) and decodes the
// JSON answer into out (nil: the answer is read and dropped). body, when
// not nil, is sent as JSON. A status of 400 or more is an *Error. Do is
// the way to routes this package has no method for.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("piweb %s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// Raw sends a request like Do and returns the answer's body as it is,
// for the routes that answer files (export).
func (c *Client) Raw(ctx context.Context, method, path string, body any) ([]byte, http.Header, error) {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.Header, err
}

// send makes and sends the request; an error answer is read into an
// *Error and its body closed.
func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("piweb %s %s: encode body: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 400 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, readError(resp)
}

// readError reads an error answer.
func readError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error.Code != "" {
		return &Error{Status: resp.StatusCode, Kind: e.Error.Code, Message: e.Error.Message}
	}
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return &Error{Status: resp.StatusCode, Message: msg}
}

// query encodes the non-empty values of kv (name, value, name, value...)
// as a query string, "" when all are empty.
func query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// sessionPath is the path of a route under /api/sessions/{id}.
func sessionPath(id, rest string) string {
	return "/api/sessions/" + url.PathEscape(id) + rest
}
