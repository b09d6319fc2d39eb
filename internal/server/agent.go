package server

import (
	"context"
	"encoding/json"
	"errors"
)

// Agent is what the server needs from the agent supervisor: one pi RPC
// worker per session, started on demand, whose events the server relays
// over SSE. It is an interface so that the server can browse without pi.
type Agent interface {
	// Pi describes the pi executable, or why there is none.
	Pi() PiStatus
	// Running reports whether the worker of the session file at path is
	// busy (streaming, compacting or retrying).
	Running(path string) bool
	// State returns the worker's phase ("" when none runs).
	State(path string) string
	// Create starts pi for a new session in cwd and sends the first
	// prompt; it returns the new session's id and file path (the file
	// appears with pi's first answer).
	Create(ctx context.Context, req CreateRequest) (id, path string, err error)
	// Command sends one RPC command (a JSON object with "type") to the
	// worker of the session file at path, starting it if needed, and
	// returns pi's response data. A pi refusal is a *CommandError.
	Command(ctx context.Context, path string, cmd json.RawMessage) (json.RawMessage, error)
	// Rename names the session through its live worker; handled is false
	// when none runs and the file may be written directly.
	Rename(ctx context.Context, path, name string) (handled bool, err error)
	// Label sets (or, with "", clears) an entry's label through the live
	// worker; handled is false when none runs.
	Label(ctx context.Context, path, entryID, label string) (handled bool, err error)
	// Watch delivers the events of the session file's worker (pi's,
	// unchanged, and piweb_* notices) as JSON objects, in order, until
	// cancel; fn must be quick. A gap is reported as {"type":"reset"}.
	// fromStart replays what the worker's hub still holds (for a session
	// piweb just started, whose first events precede the watch).
	Watch(path string, fromStart bool, fn func(event []byte)) (cancel func())
	// Stop stops the session's worker, if any, and waits for it.
	Stop(ctx context.Context, path string) error
	// Models returns pi's available models (get_available_models).
	Models(ctx context.Context) (json.RawMessage, error)
	// Close stops every worker.
	Close(ctx context.Context) error
}

// PiStatus is the pi part of GET /api/status.
type PiStatus struct {
	Found   bool    `json:"found"`
	Path    string  `json:"path,omitempty"`
	Version string  `json:"version,omitempty"`
	Error   *string `json:"error"`
	Install string  `json:"install"`
}

// InstallHint is how a user gets pi, with what it needs and the versions
// piweb supports; the page shows it when pi is missing.
const InstallHint = "npm install -g @earendil-works/pi-coding-agent (needs Node >= 22.19; piweb supports pi 0.73 through 1.6)"

// CreateRequest is the body of POST /api/sessions.
type CreateRequest struct {
	Cwd           string            `json:"cwd"`
	Message       string            `json:"message"`
	Model         string            `json:"model,omitempty"`
	ThinkingLevel string            `json:"thinkingLevel,omitempty"`
	Tools         json.RawMessage   `json:"tools,omitempty"`
	Images        []json.RawMessage `json:"images,omitempty"`
}

// CommandError is pi's answer success:false.
type CommandError struct {
	Command string
	Message string
}

func (e *CommandError) Error() string { return e.Command + ": " + e.Message }

// ErrNoPi is returned by agent operations when pi is not installed.
var ErrNoPi = errors.New("pi is not installed")

// noAgent is the Agent when pi is missing: everything browses, nothing
// runs.
type noAgent struct{ status PiStatus }

// NoAgent returns an Agent that runs nothing, reporting status.
func NoAgent(status PiStatus) Agent { return noAgent{status} }

func (a noAgent) Pi() PiStatus                                       { return a.status }
func (noAgent) Running(string) bool                                  { return false }
func (noAgent) State(string) string                                  { return "" }
func (noAgent) Stop(context.Context, string) error                   { return nil }
func (noAgent) Close(context.Context) error                          { return nil }
func (noAgent) Watch(string, bool, func([]byte)) func()              { return func() {} }
func (noAgent) Rename(context.Context, string, string) (bool, error) { return false, nil }
func (noAgent) Label(context.Context, string, string, string) (bool, error) {
	return false, nil
}
func (noAgent) Create(context.Context, CreateRequest) (string, string, error) {
	return "", "", ErrNoPi
}
func (noAgent) Command(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, ErrNoPi
}
func (noAgent) Models(context.Context) (json.RawMessage, error) { return nil, ErrNoPi }
