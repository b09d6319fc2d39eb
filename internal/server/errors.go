package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"io/fs"
	"net/http"

	"piweb/internal/session"
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

// storeErr classifies the errors of session mutations.
func storeErr(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return wrap(NotFound, err, "session file is gone")
	case errors.Is(err, session.ErrChanged):
		return wrap(Stale, err, "the session file changed meanwhile; reload and retry")
	case errors.Is(err, session.ErrNotFound):
		return wrap(NotFound, err, "entry not found")
	case errors.Is(err, session.ErrNotUserMessage):
		return wrap(Invalid, err, "fork needs a user message entry")
	case errors.Is(err, session.ErrNoHeader):
		return wrap(Invalid, err, "the session file has no valid header")
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
// error's kind. Errors that are not *Error are internal: the client sees a
// generic message and the log gets the detail.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Kind: Internal, Msg: "internal error", Err: err}
	}
	info := kindInfo[e.Kind]
	if e.Kind == Internal || e.Err != nil {
		s.logf("%s %s: %v", r.Method, r.URL.Path, err)
	}
	msg := e.Msg
	if msg == "" {
		msg = http.StatusText(info.status)
	}
	if e.Kind == Throttled {
		w.Header().Set("Retry-After", "10")
	}
	writeJSON(w, info.status, map[string]any{"error": map[string]string{"code": info.code, "message": msg}})
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

// logf logs through the server's logger.
func (s *Server) logf(format string, args ...any) {
	if s.log != nil {
		s.log.Printf(format, args...)
	}
}

var _ = log.Printf
