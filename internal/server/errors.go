package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"syscall"
	"time"

	"piweb/internal/agent"
	"piweb/internal/cwdfs"
	"piweb/internal/live"
	"piweb/internal/ops"
	"piweb/internal/pilogin"
	"piweb/internal/session"
	"piweb/internal/sse"
	"piweb/internal/terminal"
)

// Kind classifies an error for the client. Handlers say what went wrong in
// these terms and writeError alone decides the HTTP status, so the API's
// error contract (docs/api.md) lives in one table.
type Kind int

const (
	Internal Kind = iota
	Invalid
	Unauthorized
	Forbidden
	NotFound
	MethodNotAllowed
	Busy
	Stale
	TooLarge
	Unsupported
	Throttled
	PiMissing
	Canceled
	Exists
	NoSpace
	Corrupt
)

var kindInfo = map[Kind]struct {
	status int
	code   string
}{
	Internal:         {http.StatusInternalServerError, "internal"},
	Invalid:          {http.StatusBadRequest, "invalid"},
	Unauthorized:     {http.StatusUnauthorized, "unauthorized"},
	Forbidden:        {http.StatusForbidden, "forbidden"},
	NotFound:         {http.StatusNotFound, "not_found"},
	MethodNotAllowed: {http.StatusMethodNotAllowed, "method_not_allowed"},
	Busy:             {http.StatusConflict, "busy"},
	Stale:            {http.StatusConflict, "stale"},
	TooLarge:         {http.StatusRequestEntityTooLarge, "too_large"},
	Unsupported:      {http.StatusUnsupportedMediaType, "unsupported"},
	Throttled:        {http.StatusTooManyRequests, "throttled"},
	PiMissing:        {http.StatusServiceUnavailable, "pi_missing"},
	Canceled:         {statusClientClosed, "canceled"},
	Exists:           {http.StatusConflict, "exists"},
	NoSpace:          {http.StatusInsufficientStorage, "no_space"},
	Corrupt:          {http.StatusConflict, "corrupt"}, // a config file that does not parse; replacing it is asked for explicitly
}

// statusClientClosed is nginx's 499: the client went away before the
// answer. It is logged as a request, never as a server error.
const statusClientClosed = 499

// domainErrors is the one table from the errors of the packages under the
// server (session, catalog, index) to a kind and the message the client
// sees: the first entry the error matches (errors.Is) decides. The agent's
// errors that carry pi's own reason (*agent.CommandError, RefusedError,
// ...) are worded by agentErr (agentapi.go) before this table.
var domainErrors = []struct {
	target error
	kind   Kind
	msg    string
}{
	{context.Canceled, Canceled, "request cancelled"},
	{session.ErrChanged, Stale, "the session file changed meanwhile; reload and retry"},
	{session.ErrParentChanged, Stale, "the session file changed meanwhile; reload and retry"},
	{session.ErrNotFound, NotFound, "entry not found"},
	{session.ErrNotUserMessage, Invalid, "fork needs a user message entry"},
	{session.ErrNoHeader, Invalid, "the session file has no valid header"},
	{session.ErrTrashItem, NotFound, "trash item not found"},
	{agent.ErrPiMissing, PiMissing, "pi is not installed or cannot run: " + agent.InstallHint},
	{agent.ErrBusy, Busy, "the agent is busy; steer or follow up instead"},
	{agent.ErrNoTrust, Invalid, "this pi has no project trust: it loads project resources without asking"},
	{agent.ErrStale, Stale, "the session file changed outside piweb; reload or fork"},
	{agent.ErrAtCapacity, Throttled, "too many agents are running; wait for one to finish or stop one"},
	{agent.ErrNoBridge, Invalid, "this pi cannot navigate the tree (the piweb bridge extension is not loaded)"},
	{agent.ErrNoDialog, NotFound, "no such pending dialog (answered elsewhere or timed out)"},
	{ops.ErrNoSuchResource, NotFound, "pi does not load that resource for this folder"},
	{agent.ErrPackageSource, Invalid, agent.ErrPackageSource.Error()},
	{ops.ErrRunning, Busy, "the agent is running in this session; stop it first"},
	{live.ErrUnknownTopic, Invalid, "unknown topic"},
	{live.ErrUncleanPath, Invalid, "path must be clean and relative"},
	{sse.ErrNoStream, NotFound, "stream not found"},
	{sse.ErrClosed, Internal, "event broker closed"},
	{pilogin.ErrRunning, Busy, "a sign-in to this provider is already running; cancel it first"},
	{pilogin.ErrNoRun, NotFound, "no sign-in to this provider is running"},
	{terminal.ErrNotFound, NotFound, "no such terminal (it ended)"},
	{terminal.ErrTooMany, Throttled, "too many terminals are open; close one first"},
	{terminal.ErrClosed, Forbidden, "piweb is stopping"},
	{terminal.ErrNoDir, NotFound, "the session's directory does not exist"},
	{fs.ErrNotExist, NotFound, "session file is gone"},
	{fs.ErrPermission, Forbidden, "permission denied: piweb may not change this file or its folder; nothing was changed"},
	{syscall.EROFS, Forbidden, "the file system is read-only; nothing was changed"},
}

// fileKinds maps the files panel's refusals (their messages are the
// client's) to kinds.
var fileKinds = map[cwdfs.Kind]Kind{cwdfs.NotFound: NotFound, cwdfs.Forbidden: Forbidden,
	cwdfs.Invalid: Invalid, cwdfs.TooLarge: TooLarge, cwdfs.Changed: Stale,
	cwdfs.Exists: Exists, cwdfs.NoSpace: NoSpace}

// classify returns err as an *Error: itself when it is one, else the
// domainErrors entry it matches, else internal with a generic message.
func classify(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var fe *cwdfs.Error
	if errors.As(err, &fe) {
		return &Error{Kind: fileKinds[fe.Kind], Msg: fe.Msg, Err: err}
	}
	for _, d := range domainErrors {
		if errors.Is(err, d.target) {
			return &Error{Kind: d.kind, Msg: d.msg, Err: err}
		}
	}
	return &Error{Kind: Internal, Msg: "internal error", Err: err}
}

// Error is the one error type handlers return to the client. Msg is shown
// to the client as is, so it must never hold internal paths or stack
// traces; Err is the cause, logged only.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// errorf builds an Error whose message is shown to the client.
func errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// wrap builds an Error with a client message and a logged cause.
func wrap(k Kind, err error, msg string) *Error {
	return &Error{Kind: k, Msg: msg, Err: err}
}

// storeErr classifies the errors of session mutations: unknown ones are
// failures to write.
func storeErr(err error) error {
	if e := classify(err); e.Kind != Internal {
		return e
	}
	return wrap(Internal, err, "cannot write session")
}

// handlerFunc is the signature of every piweb handler: writing the answer
// is the handler's job, reporting a failure is the adapter's.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// adapt turns a handlerFunc into an http.HandlerFunc that reports a
// returned error with writeError.
func (s *Server) adapt(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// writeError answers {"error":{"code","message"}} with the status of the
// error's kind. Errors that are not *Error are classified (domainErrors);
// the client sees only the message, the log gets the cause. A request
// whose client went away is a 499, not logged as an error; nothing is
// written once the answer has started (the error is only logged).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := classify(err)
	if r.Context().Err() != nil {
		e = &Error{Kind: Canceled, Msg: "request cancelled", Err: err}
	}
	info := kindInfo[e.Kind]
	if e.Kind != Canceled && (e.Kind == Internal || e.Err != nil) {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", info.status, "err", err)
	}
	if rec, tracked := w.(*recorder); tracked && rec.status != 0 {
		return // the answer started: a second one would corrupt it
	}
	msg := e.Msg
	if msg == "" {
		msg = http.StatusText(info.status)
	}
	if e.Kind == Throttled {
		w.Header().Set("Retry-After", "10")
	}
	writeJSON(w, info.status, errorBody{Error: errorDetail{Code: info.code, Message: msg}})
}

// errorBody is the uniform error answer.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// writeJSON writes v as the JSON answer with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	if err != nil {
		return nil // the client went away; nothing to report to it
	}
	return nil
}

// ok writes a 200 JSON answer.
func ok(w http.ResponseWriter, v any) error { return writeJSON(w, http.StatusOK, v) }

// logf logs a server error.
func (s *Server) logf(format string, args ...any) {
	s.log.Error(fmt.Sprintf(format, args...))
}

// recorder notes the status of an answer, for the request log and so
// that writeError never writes after an answer started.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush passes flushes through, for handlers that assert http.Flusher.
func (r *recorder) Flush() { http.NewResponseController(r.ResponseWriter).Flush() }

// logRequests writes one log line per request: method, path, status and
// duration (499 when the client went away first).
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
			if r.Context().Err() != nil {
				status = statusClientClosed
			}
		}
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", status,
			"duration", time.Since(start))
	})
}

// isKind reports whether err is an *Error of kind k.
func isKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}
