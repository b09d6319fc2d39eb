package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"piweb/internal/errs"
)

// kindStatus is the one table from an error's kind (set where the error
// happened, internal/errs) to the HTTP status of its answer; the answer's
// code is the kind's name ("not_found"). This is the API's error contract
// (docs/api.md).
var kindStatus = map[errs.Kind]int{
	errs.Internal:         http.StatusInternalServerError,
	errs.Invalid:          http.StatusBadRequest,
	errs.Unauthorized:     http.StatusUnauthorized,
	errs.Forbidden:        http.StatusForbidden,
	errs.NotFound:         http.StatusNotFound,
	errs.MethodNotAllowed: http.StatusMethodNotAllowed,
	errs.Busy:             http.StatusConflict,
	errs.Stale:            http.StatusConflict,
	errs.TooLarge:         http.StatusRequestEntityTooLarge,
	errs.Unsupported:      http.StatusUnsupportedMediaType,
	errs.Throttled:        http.StatusTooManyRequests,
	errs.PiMissing:        http.StatusServiceUnavailable,
	errs.Canceled:         statusClientClosed,
	errs.Exists:           http.StatusConflict,
	errs.NoSpace:          http.StatusInsufficientStorage,
	errs.Corrupt:          http.StatusConflict,   // a config file that does not parse; replacing it is asked for explicitly
	errs.Unavailable:      http.StatusBadGateway, // the fleet's machine that owns a session is offline or unreachable
}

// statusClientClosed is nginx's 499: the client went away before the
// answer. It is logged as a request, never as a server error.
const statusClientClosed = 499

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
// error's kind (errs.KindOf); the client sees only errs.Message, the log
// gets the error. A request whose client went away is a 499, not logged
// as an error; nothing is written once the answer has started (the error
// is only logged).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind, msg := errs.KindOf(err), errs.Message(err)
	if r.Context().Err() != nil {
		kind, msg = errs.Canceled, "request cancelled"
	}
	status := kindStatus[kind]
	if kind != errs.Canceled && (kind == errs.Internal || hasCause(err)) {
		s.log.Error("request failed", "method", r.Method, "path", logPath(r), "status", status, "err", err)
	}
	if rec, tracked := w.(*recorder); tracked && rec.status != 0 {
		return // the answer started: a second one would corrupt it
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	if kind == errs.Throttled {
		w.Header().Set("Retry-After", "10")
	}
	if wantsPage(r) {
		writePage(w, status, msg)
		return
	}
	writeJSON(w, status, errorBody{Error: errorDetail{Code: kind.String(), Message: msg}})
}

// wantsPage reports whether r is a browser opening a page (a link, the
// address bar), not the app asking the API: its refusal is a page to
// read (sign-in beyond loopback), not JSON.
func wantsPage(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && !strings.HasPrefix(r.URL.Path, "/api/") &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
}

// writePage answers a refusal as a small page of its own: no script, no
// asset of the app (which the refusal may cover too).
func writePage(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	hint := ""
	if status == http.StatusUnauthorized || status == http.StatusTooManyRequests {
		hint = signInHint
	}
	fmt.Fprintf(w, pageHTML, html.EscapeString(http.StatusText(status)), html.EscapeString(msg), hint)
}

const signInHint = `<p>To sign in, open the link piweb printed when it started; a link is used up once it signed a browser
in (<code>piweb serve</code> prints a new one when it starts).</p>`

const pageHTML = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>piweb: %[1]s</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34em;margin:15vh auto;padding:0 20px;color:#1f2328;background:#fff}
h1{font-size:20px}p{color:#59636e}@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}p{color:#9198a1}}</style>
</head><body><h1>piweb: %[1]s</h1><p>%[2]s.</p>
%[3]s</body></html>
`

// hasCause says whether err is more than a refusal of the request (an
// errs.Errorf): such errors are logged whatever their kind.
func hasCause(err error) bool {
	var e *errs.Error
	return !errors.As(err, &e) || e.Err != nil
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
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	sw := &statusWriter{w: w, status: status}
	if err := json.NewEncoder(sw).Encode(v); err != nil && !sw.started {
		return fmt.Errorf("encode answer: %w", err)
	}
	return nil // written, or the client went away: nothing to report to it
}

// statusWriter writes the status before the first bytes of an answer.
// json.Encoder encodes the whole value before it writes (so an encoding
// error leaves the answer unstarted), then writes its buffer as it is: no
// copy of a large answer (a 1 GB session's detail is 75 MB), where
// json.Marshal returns one and appending the newline may make another.
type statusWriter struct {
	w       http.ResponseWriter
	status  int
	started bool
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if !s.started {
		s.started = true
		s.w.WriteHeader(s.status)
	}
	return s.w.Write(b)
}

// ok writes a 200 JSON answer.
func ok(w http.ResponseWriter, v any) error { return writeJSON(w, http.StatusOK, v) }

// logf logs a server error.
func (s *Server) logf(format string, args ...any) {
	s.log.Error(fmt.Sprintf(format, args...))
}

// recorder notes the status and size of an answer, for the access log
// and so that writeError never writes after an answer started.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
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
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush passes flushes through, for handlers that assert http.Flusher.
func (r *recorder) Flush() { http.NewResponseController(r.ResponseWriter).Flush() }

// logRequests writes one access record per request: method, path,
// status (499 when the client went away first), bytes written, duration
// and the client's address. The page's successful polls (isPoll) are
// logged at DEBUG, so that INFO shows what people did.
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
		s.requests.observe(r.Pattern, status, time.Since(start))
		level := slog.LevelInfo
		if status < 400 && isPoll(r) {
			level = slog.LevelDebug
		}
		s.log.LogAttrs(r.Context(), level, "request", slog.String("method", r.Method),
			slog.String("path", logPath(r)), slog.Int("status", status), slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)), slog.String("remote", r.RemoteAddr))
	})
}

// isPoll says whether r is one the page repeats on a timer: the status
// (index progress, the demo's way out) and a running sign-in's long poll.
func isPoll(r *http.Request) bool {
	return r.Method == http.MethodGet &&
		(r.URL.Path == "/api/status" || strings.HasPrefix(r.URL.Path, "/api/config/signin/"))
}
