package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"piweb/internal/index"
	"piweb/internal/opt"
)

// Options configures a Server.
type Options struct {
	// Index answers every tool.
	Index *index.Index
	// Fresh, when set, brings Index up to date before a tool answers;
	// the tool waits for it FreshWait at most (0: until it is done), then
	// answers from the index as it is, and says so.
	Fresh     func(ctx context.Context) error
	FreshWait time.Duration
	// Loc is the zone of the search's dates and of the times answered;
	// nil is UTC.
	Loc *time.Location
	// Version is piweb's, in serverInfo.
	Version string
	// Log gets what the client is not told; nil discards it.
	Log *slog.Logger
}

// Server is an MCP server over one index.
type Server struct{ o Options }

// New returns a server with o.
func New(o Options) *Server {
	if o.Loc == nil {
		o.Loc = time.UTC
	}
	opt.Log(&o.Log)
	return &Server{o: o}
}

// Bounds of the tools' answers.
const (
	// DefaultChars and MaxChars bound a read tool's page: its maxChars
	// argument's default (under pi's 20 KB, past which pi cuts a tool's
	// text in the middle, with the answer's own fields) and largest value.
	DefaultChars = 16_000
	MaxChars     = 100_000
	// MaxHits bounds a search's hits, MaxQuery its text in bytes.
	MaxHits  = 50
	MaxQuery = 4096
)

// tool is one tool as tools/list describes it.
type tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations map[string]any  `json:"annotations"`
}

// readOnly are every tool's annotations.
var readOnly = map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}

const sessionArg = `"sessionId": {"type": "string", "description": "the session's id, or a unique prefix of it (4 characters or more), as search and list_sessions give it"}`
const charsArg = `"maxChars": {"type": "integer", "minimum": 1000, "maximum": 100000, "description": "the most characters of the page (default 16000)"}`

var toolList = []tool{
	{"search", "Search pi sessions",
		"Full-text search over every pi session on this machine, all projects, abandoned branches and compacted history included; current-branch hits first, newest and most relevant first. " +
			`The query takes words (all must match), "phrases", prefix* and filters: project:NAME (folder name or path), after:YYYY-MM-DD, before:YYYY-MM-DD, role:user|assistant|tool, model:ID, branch:current|abandoned|all. ` +
			"Each hit gives sessionId and entryId for read_context and read_entry.",
		json.RawMessage(`{"type": "object", "properties": {
			"query": {"type": "string", "description": "words and filters, e.g. 'project:api after:2026-11-01 role:user migration'"},
			"limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "the most hits (default 10)"}},
			"required": ["query"], "additionalProperties": false}`), readOnly},
	{"list_sessions", "List a project's sessions",
		"The sessions of a project (all projects when project is left out), the most recently active first: id, name, folder, times, message count, first message.",
		json.RawMessage(`{"type": "object", "properties": {
			"project": {"type": "string", "description": "the project's folder name or path"},
			"limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "the most sessions (default 20)"},
			"offset": {"type": "integer", "minimum": 0, "description": "sessions to skip, for the next page"}},
			"additionalProperties": false}`), readOnly},
	{"read_context", "Read a session's context",
		"The messages of a session as its model saw them at its last entry (pi's context: after a compaction its summary and what it kept), as pi's message JSON, one page at a time: " +
			"from message start (negative counts from the end: -10 is the last ten), at most maxChars characters. The answer gives the total and the next page's start.",
		json.RawMessage(`{"type": "object", "properties": {` + sessionArg + `,
			"start": {"type": "integer", "description": "the first message's index; negative counts from the end (default 0)"},
			` + charsArg + `},
			"required": ["sessionId"], "additionalProperties": false}`), readOnly},
	{"read_entry", "Read one session entry",
		"One entry of a session exactly as the file holds it (JSON), any branch, paged by byte offset for a long one.",
		json.RawMessage(`{"type": "object", "properties": {` + sessionArg + `,
			"entryId": {"type": "string", "description": "the entry's id, as a search hit or read_context gives it"},
			"offset": {"type": "integer", "minimum": 0, "description": "the first byte of the page (default 0)"},
			` + charsArg + `},
			"required": ["sessionId", "entryId"], "additionalProperties": false}`), readOnly},
}

// toolFuncs run the tools: each decodes its arguments and returns the
// answer to show, or an error the model is told (isError).
var toolFuncs = map[string]func(s *Server, ctx context.Context, args json.RawMessage) (any, error){
	"search":        (*Server).search,
	"list_sessions": (*Server).listSessions,
	"read_context":  (*Server).readContext,
	"read_entry":    (*Server).readEntry,
}

// callTool runs tools/call.
func (s *Server) callTool(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Name == "" {
		return nil, &rpcError{codeInvalidParams, "invalid params: tools/call needs a tool name"}
	}
	run, ok := toolFuncs[p.Name]
	if !ok {
		return nil, &rpcError{codeInvalidParams, "unknown tool: " + p.Name}
	}
	behind := !s.fresh(ctx)
	out, err := run(s, ctx, p.Arguments)
	if err != nil {
		return toolResult(err.Error(), true, behind), nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		s.o.Log.Error("mcp: marshal a tool's answer", "tool", p.Name, "err", err)
		return toolResult("internal error", true, false), nil
	}
	return toolResult(string(b), false, behind), nil
}

// fresh brings the index up to date, waiting FreshWait at most; false
// says it is not (yet).
func (s *Server) fresh(ctx context.Context) bool {
	if s.o.Fresh == nil {
		return true
	}
	if s.o.FreshWait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.o.FreshWait)
		defer cancel()
	}
	if err := s.o.Fresh(ctx); err != nil {
		s.o.Log.Warn("mcp: index update", "err", err)
		return false
	}
	return true
}

// behindNote is the second text block of an answer from an index that
// is not up to date.
const behindNote = "Note: piweb's index is still being brought up to date (on a first run it reads every session): " +
	"recent or, on a first run, many sessions may be missing from this answer. Ask again in a minute for a complete one."

func toolResult(text string, isError, behind bool) map[string]any {
	content := []map[string]string{{"type": "text", "text": text}}
	if behind {
		content = append(content, map[string]string{"type": "text", "text": behindNote})
	}
	r := map[string]any{"content": content}
	if isError {
		r["isError"] = true
	}
	return r
}

// decodeArgs decodes a tool's arguments into v: absent or null is {},
// unknown names and wrong types are errors in words.
func decodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("bad arguments: %v", err)
	}
	return nil
}

// bound is *p, or def when p is nil, checked against [lo, hi].
func bound(name string, p *int, def, lo, hi int) (int, error) {
	if p == nil {
		return def, nil
	}
	if *p < lo || *p > hi {
		return 0, fmt.Errorf("%s must be between %d and %d", name, lo, hi)
	}
	return *p, nil
}
