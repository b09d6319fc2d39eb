package agent

import (
	"context"
	"encoding/json"

	"piweb/internal/broker"
)

// Adapter is what the web server drives (Service, or NoService without
// pi): one pi RPC worker per session, started on
// demand, whose events the server relays over SSE. Its errors are the agent
// package's typed errors, mapped to HTTP status by the server's one error table.
type Adapter interface {
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
	// returns pi's response data. A pi refusal is an *CommandError.
	Command(ctx context.Context, path string, cmd json.RawMessage) (json.RawMessage, error)
	// Rename names the session through its live worker, or runs offline
	// (which writes the file) when none runs, with no pi starting on the
	// file meanwhile.
	Rename(ctx context.Context, path, name string, offline func() error) error
	// Label sets (or, with "", clears) an entry's label as Rename names.
	Label(ctx context.Context, path, entryID, label string, offline func() error) error
	// Events is the broker its workers publish to (pi's events in pi
	// 1.x's shapes and piweb_* notices, on Key(path), and their
	// state changes on WorkersTopic), which the server then uses as
	// its own; nil when it runs no workers.
	Events() *broker.Broker[broker.Event]
	// FileGrew hands the session file's live worker, if any, the complete
	// lines appended from offset from, as the index read them (its check
	// for other writers then reads no file).
	FileGrew(path string, from int64, lines []byte)
	// OwnSince reports the leaf the session file had when its live
	// worker's pi loaded it ("" when pi created it) and whether every line
	// appended since is that pi's own; ok is false when no worker runs or
	// another process wrote.
	OwnSince(ctx context.Context, path string) (base string, ok bool, err error)
	// Stop stops the session's worker, if any, and waits for it.
	Stop(ctx context.Context, path string) error
	// Approve has the session's pi load its folder's project resources
	// for this session only (pi's --approve), stopping its idle worker;
	// Approved reports it.
	Approve(ctx context.Context, path string) error
	Approved(path string) bool
	// Models returns pi's available models (get_available_models).
	Models(ctx context.Context) (json.RawMessage, error)
	// Close stops every worker.
	Close(ctx context.Context) error
}

var (
	_ Adapter = (*Service)(nil)
	_ Adapter = NoService{}
)
