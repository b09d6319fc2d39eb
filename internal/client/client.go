// Package client is a typed Go client for piweb's own HTTP API
// (docs/api.md): one method per route, the answers of internal/apitype,
// and every error answer as an *Error carrying the server's errs.Kind.
// Tests drive the server through it, and another piweb of the fleet
// forwards its user's requests to this machine's through it
// (server/proxy.go).
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
	"strconv"
	"strings"

	"piweb/internal/errs"
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
	base    string
	hc      *http.Client
	header  http.Header
	machine string // ?machine= on every request (On)
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

// On is a Client whose every request names machine (?machine=, the
// fleet's contract: a route of another machine's session is the local
// route with ?machine=NAME), so that its methods read or drive that
// machine's sessions through this piweb; "" names none.
func (c *Client) On(machine string) *Client {
	d := *c
	d.machine = machine
	return &d
}

// Error is an error answer of the API: its HTTP status, its code as
// sent ("not_found", "stale", ...), that code as the server's errs.Kind,
// and the message meant for the user. It is an errs.Classified, so that
// errs.KindOf(err) is the other server's kind and a piweb that passes
// the error on answers with the same kind and message. An answer that is
// not the API's error shape (a proxy's page) has Code "", Kind
// errs.Internal and the start of its body as Message; a code this build
// does not know is errs.Internal too.
type Error struct {
	Status  int
	Code    string
	Kind    errs.Kind
	Message string
	// Clock is the server's time (RFC 3339) when it refused a fleet
	// request's proof as out of its time window (the Piweb-Fleet-Clock
	// header): the two machines' clocks differ. "" otherwise.
	Clock string
}

func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("piweb: status %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("piweb: %s (%d): %s", e.Code, e.Status, e.Message)
}

// ErrorKind is the server's kind of the failure (errs.Classified).
func (e *Error) ErrorKind() errs.Kind { return e.Kind }

// ClientMessage is the server's message for the user, or for an answer
// that is not the API's a sentence with its status: a foreign page's
// text is not passed on (errs.Classified).
func (e *Error) ClientMessage() string {
	if e.Code == "" {
		return fmt.Sprintf("the other piweb answered with status %d", e.Status)
	}
	return e.Message
}

// StatusOf is err's HTTP status when it is an *Error, else 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// Do sends a request to path (with its query, if any) and decodes the
// JSON answer into out (nil: the answer is read and dropped). body, when
// not nil, is sent as JSON. A status of 400 or more is an *Error. Do is
// the way to routes this package has no method for.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body)
	return decodeAnswer(resp, err, out)
}

// decodeAnswer decodes resp's JSON body into out (nil: the body is read
// and dropped) and closes it; err is Send's, returned as it is.
func decodeAnswer(resp *http.Response, err error, out any) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("piweb %s %s: decode answer: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return nil
}

// Raw sends a request like Do and returns the answer's body as it is,
// for the routes that answer files (export, a file of a session's cwd).
func (c *Client) Raw(ctx context.Context, method, path string, body any) ([]byte, http.Header, error) {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.Header, err
}

// send sends body as JSON (nil: no body) and returns the answer; an
// error answer is an *Error.
func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	if body == nil {
		return c.Send(ctx, method, path, nil, nil)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("piweb %s %s: encode body: %w", method, path, err)
	}
	hdr := http.Header{"Content-Type": {"application/json"}}
	return c.Send(ctx, method, path, bytes.NewReader(b), hdr)
}

// Send sends a request with body as it is (nil: none) and the Client's
// headers, then header's (a "Host" in either is the request's Host, a
// "Content-Length" the body's length, else it is sent chunked), and
// returns the answer for the caller to read and close. A status of 400 or
// more is an *Error, its body read and closed. Send is the way to
// requests the typed methods do not make: a body that is not JSON, a
// header of the caller's, the test of a refusal.
func (c *Client) Send(ctx context.Context, method, path string, body io.Reader, header http.Header) (*http.Response, error) {
	req, err := c.request(ctx, method, path, body, header)
	if err != nil {
		return nil, err
	}
	return c.do(req)
}

// request makes a request to path with the Client's headers, then
// header's.
func (c *Client) request(ctx context.Context, method, path string, body io.Reader, header http.Header) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+c.onMachine(path), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	for _, h := range []http.Header{c.header, header} {
		for k, vs := range h {
			req.Header[http.CanonicalHeaderKey(k)] = vs
		}
	}
	if host := req.Header.Get("Host"); host != "" {
		req.Host = host
		req.Header.Del("Host")
	}
	if n, err := strconv.ParseInt(req.Header.Get("Content-Length"), 10, 64); err == nil && body != nil && req.ContentLength <= 0 {
		req.ContentLength = n // a body of the caller's, of known length (a forwarded request's)
	}
	req.Header.Del("Content-Length") // the transport writes the request's own
	return req, nil
}

// do sends req; an error answer is an *Error, its body read and closed.
func (c *Client) do(req *http.Request) (*http.Response, error) {
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
		k, known := errs.ParseKind(e.Error.Code)
		if !known {
			k = errs.Internal
		}
		return &Error{Status: resp.StatusCode, Code: e.Error.Code, Kind: k, Message: e.Error.Message, Clock: resp.Header.Get(ClockHeader)}
	}
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return &Error{Status: resp.StatusCode, Kind: errs.Internal, Message: msg, Clock: resp.Header.Get(ClockHeader)}
}

// ClockHeader carries the server's time on its refusal of a fleet proof
// out of its time window (Error.Clock).
const ClockHeader = "Piweb-Fleet-Clock"

// onMachine is path naming the Client's machine, if any.
func (c *Client) onMachine(path string) string {
	if c.machine == "" {
		return path
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + "machine=" + url.QueryEscape(c.machine)
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
