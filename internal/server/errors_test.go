package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"piweb/internal/agent"
	"piweb/internal/errs"
	"piweb/internal/ops"
	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// checkErrorBody asserts the uniform error answer: exactly
// {"error":{"code","message"}}, the code matching the status, and no
// stack trace or internal path in it.
func checkErrorBody(t *testing.T, what string, status int, body []byte, secrets ...string) {
	t.Helper()
	var e map[string]map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil || len(e) != 1 || len(e["error"]) != 2 {
		t.Errorf("%s: not the uniform error shape: %s", what, body)
		return
	}
	code, _ := e["error"]["code"].(string)
	msg, _ := e["error"]["message"].(string)
	found := false
	for kind, st := range kindStatus {
		found = found || (kind.String() == code && st == status)
	}
	if !found || msg == "" {
		t.Errorf("%s: status %d with code %q, message %q", what, status, code, msg)
	}
	leaks := append([]string{"goroutine ", ".go:", "panic", "\n", os.TempDir() + "/"}, secrets...)
	for _, s := range leaks {
		if s != "" && strings.Contains(msg, s) {
			t.Errorf("%s: message leaks %q: %s", what, s, msg)
		}
	}
}

// TestErrorsLeakNothing: every route, asked for an unknown session or
// with bad parameters, and the failures that are the server's own fault
// (unreadable session, trash or models.json), answer the uniform error
// shape without a path or a stack trace.
func TestErrorsLeakNothing(t *testing.T) {
	var logged bytes.Buffer
	r := newRig(t, Options{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	s := r.item("Dark theme")
	id, path := s.ID, s.Path
	secrets := []string{r.d.Root, r.d.AgentDir, filepath.Base(path)}
	do := func(method, url, body string) {
		t.Helper()
		resp := r.do(method, url, body)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode < 400 {
			t.Errorf("%s %s: status %d, want an error", method, url, resp.StatusCode)
			return
		}
		checkErrorBody(t, method+" "+url, resp.StatusCode, b, secrets...)
	}
	// Every route with a session that does not exist, or a path that tries
	// to climb out.
	for _, rt := range apiRoutes(t) {
		if !strings.Contains(rt.path, "{") {
			continue
		}
		for _, bad := range []string{"nope", "..%2F..%2Fetc", strings.Repeat("f", 300)} {
			url := strings.NewReplacer("{id}", bad, "{trashId}", bad, "{tid}", bad).Replace(rt.path)
			do(rt.method, url, "{}")
		}
	}
	// Bad parameters and bodies.
	base := "/api/sessions/" + id
	for _, c := range []struct{ method, url, body string }{
		{"GET", "/api/sessions?limit=-1", ""}, {"GET", "/api/sessions?order=up", ""},
		{"GET", "/api/sessions?limit=99999999999999999999", ""},
		{"GET", base + "/context?before=99999", ""}, {"GET", base + "/context?limit=x", ""},
		{"GET", base + "/entries?leaf=nope", ""}, {"GET", "/api/search?q=x&limit=100000", ""},
		{"GET", "/api/usage?by=week", ""}, {"GET", base + "/export?format=exe", ""},
		{"GET", base + "/file?path=src", ""}, {"GET", base + "/files?path=README.md", ""},
		{"GET", base + "/file?path=" + r.d.AgentDir + "/models.json", ""},
		{"GET", base + "/file?path=src%00x", ""}, {"GET", base + "/files/events?path=../", ""},
		{"POST", base + "/rename", `{"name":1}`}, {"POST", base + "/rename", `{"name":"a"} {}`},
		{"POST", base + "/rename", `[]`}, {"POST", base + "/label", `{"label":"x"}`},
		{"POST", base + "/fork", `{"entryId":"` + id + `"}`}, {"POST", base + "/clone", `{"leaf":"nope"}`},
		{"POST", base + "/commands", `{"type":"prompt","expectLeaf":1}`},
		{"POST", base + "/commands", `{"type":"shell"}`},
		{"POST", "/api/sessions", `{"cwd":"` + r.d.Root + `/missing","message":"hi"}`},
		{"POST", "/api/sessions", `{"cwd":"/","message":"hi","thinkingLevel":"max"}`},
		{"POST", "/api/sessions", `{"cwd":"/","message":"hi","tools":{"x":1}}`},
		{"PUT", "/api/models-config", `{"config":{"providers":[]}}`},
		{"PUT", "/api/models-config", `{"config":{"providers":{"p":{"api":1}}}}`},
		{"DELETE", "/api/sessions", `{}`}, {"PATCH", base, `{}`},
	} {
		do(c.method, c.url, c.body)
	}
	// Failures that are the server's own: a session file that cannot be
	// read, a trash that cannot be made, a models.json that is a folder.
	os.Rename(path, path+".moved")
	os.Mkdir(path, 0o755)
	for _, u := range []string{base, base + "/context", base + "/entries", base + "/export"} {
		do("GET", u, "")
	}
	os.Remove(path)
	os.Rename(path+".moved", path)
	os.WriteFile(filepath.Join(r.d.AgentDir, "trash"), nil, 0o644)
	do("DELETE", base, "{}")
	os.Mkdir(filepath.Join(r.d.AgentDir, "models.json"), 0o755)
	do("GET", "/api/models-config", "")
	do("PUT", "/api/models-config", `{"config":{"providers":{}}}`)
	if !strings.Contains(logged.String(), r.d.AgentDir) {
		t.Errorf("the log lacks the causes the client was not shown:\n%s", logged.String())
	}
}

// TestPanicAnswersInternal: a handler that panics answers 500 internal
// in the uniform shape, with neither the panic value nor a stack trace.
func TestPanicAnswersInternal(t *testing.T) {
	var logged bytes.Buffer
	r := newRig(t, Options{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	h := r.srv.guard(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom in " + r.d.AgentDir)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:30141/api/x", nil))
	if rec.Code != 500 {
		t.Errorf("status %d", rec.Code)
	}
	checkErrorBody(t, "panic", rec.Code, rec.Body.Bytes(), r.d.AgentDir, "boom")
	if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Error("panic answer without security headers")
	}
	if !strings.Contains(logged.String(), "boom") {
		t.Errorf("panic not logged: %s", logged.String())
	}
}

// TestAgentErr: the agent package's typed errors carry their kinds: pi's refusal text
// reaches the client, but only its first line (a JavaScript stack under it
// names pi's install paths); pi refusing a model at start is the user's
// 400, not a 500 (issue 17.12); the worker cap is a 429.
func TestAgentErr(t *testing.T) {
	tests := []struct {
		name string
		err  error
		kind errs.Kind
		msg  string
	}{
		{"one line", &agent.CommandError{Command: "set_model",
			Message: "Model not found: x/y\n    at resolve (/usr/lib/node_modules/pi/dist/model.js:10:3)"},
			errs.Invalid, "pi refused set_model: Model not found: x/y"},
		{"busy", &agent.CommandError{Command: "prompt",
			Message: "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."},
			errs.Busy, "the agent is busy; steer or follow up instead"},
		{"refused at start", &agent.RefusedError{Reason: `Model "fake/nope" not found. Use --list-models to see available models.`},
			errs.Invalid, `pi refused: Model "fake/nope" not found. Use --list-models to see available models.`},
		{"cap", fmt.Errorf("start: %w", agent.ErrAtCapacity), errs.Throttled, "too many agents are running; wait for one to finish or stop one"},
		{"stale", agent.ErrStale, errs.Stale, "the session file changed outside piweb; reload or fork"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if k, msg := errs.KindOf(tt.err), errs.Message(tt.err); k != tt.kind || msg != tt.msg {
				t.Errorf("kind %v message %q, want kind %v message %q", k, msg, tt.kind, tt.msg)
			}
		})
	}
}

// TestOpsErr: a failed file write of a mutation says so, whether or not
// a pi was involved (it was "the agent failed" with one), and an agent
// that refused before any step keeps pi's reason.
func TestOpsErr(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		kind errs.Kind
		msg  string
	}{
		{"store", &ops.StepError{Step: ops.StepStore, Err: errors.New("disk on fire")}, errs.Internal, "cannot write session"},
		{"agent store", &ops.StepError{Step: ops.StepAgentStore, Err: errors.New("disk on fire")}, errs.Internal, "cannot write session"},
		{"agent refused", &agent.CommandError{Command: "set_session_name", Message: "no"}, errs.Invalid, "pi refused set_session_name: no"},
		// A file that changed meanwhile is stale at every step (a delete said busy).
		{"trash changed", &ops.StepError{Step: ops.StepTrash, Err: sessionstore.ErrChanged}, errs.Stale,
			"the session changed while it was being deleted; try again"},
		{"store changed", &ops.StepError{Step: ops.StepStore, Err: fmt.Errorf("append: %w", sessionstore.ErrChanged)}, errs.Stale,
			"the session file changed meanwhile; reload and retry"},
		{"disk full", &ops.StepError{Step: ops.StepStore, Err: &fs.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}},
			errs.NoSpace, "the disk is full; nothing was changed"},
		{"load gone", &ops.StepError{Step: ops.StepLoad, Err: fs.ErrNotExist}, errs.NotFound, "session file is gone"},
		{"restore taken", &ops.StepError{Step: ops.StepRestore, Err: fs.ErrExist}, errs.Busy, "a file already exists where the session was"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if k, msg := errs.KindOf(tt.err), errs.Message(tt.err); k != tt.kind || msg != tt.msg {
				t.Errorf("kind %v message %q, want kind %v message %q", k, msg, tt.kind, tt.msg)
			}
		})
	}
}

// TestRequestLogAndCancel: one access record per request with method,
// path, status, bytes, duration and the client's address; the page's
// successful status polls only at DEBUG; a cancelled request answers 499
// and is not logged as a failure; no error is written once an answer has
// started.
func TestRequestLogAndCancel(t *testing.T) {
	var logged bytes.Buffer
	r := newRig(t, Options{Log: slog.New(slog.NewJSONHandler(&logged, nil))})
	if _, err := r.api().Projects(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.api().Status(t.Context()); err != nil {
		t.Fatal(err)
	}
	var line struct {
		Msg, Method, Path, Remote string
		Status                    int
		Bytes                     int64
		Duration                  float64
	}
	for l := range strings.SplitSeq(logged.String(), "\n") {
		if strings.Contains(l, `"path":"/api/projects"`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	if line.Msg != "request" || line.Method != "GET" || line.Status != 200 || line.Duration <= 0 ||
		line.Bytes <= 0 || !strings.HasPrefix(line.Remote, "127.0.0.1:") {
		t.Errorf("request log line %+v in:\n%s", line, logged.String())
	}
	if strings.Contains(logged.String(), `"path":"/api/status"`) {
		t.Errorf("a status poll logged at INFO:\n%s", logged.String())
	}
	logged.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", "http://127.0.0.1:30141/api/search?q=x", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	r.srv.writeError(rec, req, fmt.Errorf("search: %w", context.Canceled))
	if rec.Code != 499 || strings.Contains(logged.String(), "request failed") {
		t.Errorf("cancelled: status %d, log %s", rec.Code, logged.String())
	}
	started := &recorder{ResponseWriter: httptest.NewRecorder()}
	started.Write([]byte("partial"))
	r.srv.writeError(started, httptest.NewRequest("GET", "/", nil), errors.New("late"))
	if body := started.ResponseWriter.(*httptest.ResponseRecorder).Body.String(); body != "partial" {
		t.Errorf("an error was written after the answer started: %q", body)
	}
}

// TestFullDiskIsNoSpace: a session write that meets a full disk answers
// 507 no_space, as an upload does, and the session stays.
func TestFullDiskIsNoSpace(t *testing.T) {
	r := newRig(t, Options{})
	r.srv.store.Fault = func(step string) error {
		if step == sessionstore.StepDeleteMove {
			return &fs.PathError{Op: "link", Path: "/x", Err: syscall.ENOSPC}
		}
		return nil
	}
	s := r.item("Fix the flaky")
	_, err := r.api().Delete(t.Context(), s.ID)
	wantErr(t, "delete on a full disk", err, 507, "no_space")
	if _, err := os.Stat(s.Path); err != nil {
		t.Errorf("the session is gone: %v", err)
	}
}

// TestDomainErrorTable: the session package's errors carry their kinds,
// wrapped or not.
func TestDomainErrorTable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want errs.Kind
	}{
		{sessionstore.ErrChanged, errs.Stale}, {fmt.Errorf("x: %w", pisession.ErrNotFound), errs.NotFound},
		{sessionstore.ErrTrashItem, errs.NotFound}, {os.ErrNotExist, errs.NotFound}, {context.Canceled, errs.Canceled},
		{errors.New("disk on fire"), errs.Internal}, {errs.Errorf(errs.Busy, "busy"), errs.Busy},
	} {
		if got := errs.KindOf(c.err); got != c.want {
			t.Errorf("%v: kind %v, want %v", c.err, got, c.want)
		}
	}
}
