package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// LatestVersion is the newest protocol version the server speaks;
// SupportedVersions are all it accepts, newest first.
const LatestVersion = "2025-11-25"

var SupportedVersions = []string{LatestVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// MaxLine bounds one message: a longer line is skipped and refused.
const MaxLine = 1 << 20

// JSON-RPC's error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// request is a message from the client; Method is nil for a response to
// a request of ours (we send none, so those are dropped).
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var null = json.RawMessage("null")

// Serve answers the messages read from r on w until r ends, ctx ends or a
// write fails (see the package's contract). It returns as soon as ctx
// ends, even while r blocks (its reader is left to the process's exit).
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	frames := make(chan frame)
	stop := make(chan struct{})
	defer close(stop)
	go readFrames(r, frames, stop)
	for {
		var f frame
		select {
		case <-ctx.Done():
			return nil
		case f = <-frames:
		}
		out := errorLine(null, codeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxLine))
		if !f.tooLong {
			out = s.handle(ctx, f.line)
		}
		if out != nil {
			if _, err := w.Write(out); err != nil {
				return err
			}
		}
		if f.err == io.EOF {
			return nil
		}
		if f.err != nil {
			return f.err
		}
	}
}

// frame is one line read, or the read's end.
type frame struct {
	line    []byte
	tooLong bool
	err     error
}

// readFrames sends r's lines on out, one at a time, until r ends or stop
// closes.
func readFrames(r io.Reader, out chan<- frame, stop <-chan struct{}) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, nil, MaxLine)
		select {
		case out <- frame{line, tooLong, err}:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// readLine reads the next line into buf, without its newline; tooLong
// says that it was longer than max, in which case its bytes were dropped
// as they came.
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) > max+1 {
			tooLong, buf = true, buf[:0]
		}
		if !tooLong {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), tooLong, err
	}
}

// handle answers one line: the answer's line, or nil when it needs none
// (a notification, a blank line, a response).
func (s *Server) handle(ctx context.Context, line []byte) []byte {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if !json.Valid(line) {
		return errorLine(null, codeParse, "parse error: the line is not JSON")
	}
	var req request
	if line[0] != '{' || json.Unmarshal(line, &req) != nil {
		return errorLine(null, codeInvalidRequest, "invalid request: want a JSON-RPC 2.0 object (batches are not supported)")
	}
	if req.Method == nil {
		return nil // a response or an error from the client: we asked nothing
	}
	if len(req.ID) == 0 {
		s.notified(*req.Method)
		return nil
	}
	if req.JSONRPC != "2.0" || !validID(req.ID) {
		return errorLine(null, codeInvalidRequest, `invalid request: want "jsonrpc":"2.0" and an id that is a string or a number`)
	}
	return s.answer(ctx, req)
}

// validID reports whether id is a JSON string or number, as MCP's ids are.
func validID(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

func (s *Server) notified(method string) {
	s.o.Log.Debug("mcp notification", "method", method)
}

// answer runs a request's method and returns its answer line; a panic
// in a method is answered as an internal error.
func (s *Server) answer(ctx context.Context, req request) (out []byte) {
	defer func() {
		if v := recover(); v != nil {
			s.o.Log.Error("mcp: panic answering a request", "method", *req.Method, "panic", v)
			out = errorLine(req.ID, codeInternal, "internal error")
		}
	}()
	result, rerr := s.call(ctx, *req.Method, req.Params)
	if rerr != nil {
		return errorLine(req.ID, rerr.Code, rerr.Message)
	}
	return s.resultLine(req.ID, result)
}

// call dispatches a method.
func (s *Server) call(ctx context.Context, method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "initialize":
		return s.initialize(params)
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return map[string]any{"tools": toolList}, nil
	case "tools/call":
		return s.callTool(ctx, params)
	}
	return nil, &rpcError{codeNoMethod, "method not found: " + method}
}

// initialize negotiates the protocol version.
func (s *Server) initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.ProtocolVersion == "" {
		return nil, &rpcError{codeInvalidParams, "invalid params: initialize needs a protocolVersion"}
	}
	v := LatestVersion
	if slices.Contains(SupportedVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": v,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
		"serverInfo":      map[string]any{"name": "piweb", "title": "piweb: pi's sessions", "version": s.o.Version},
		"instructions":    instructions,
	}, nil
}

// instructions tell the model what the server is for; pi shows the first
// line in its system prompt.
const instructions = "Search and read every past pi session on this machine (all projects, abandoned branches too): how a problem was solved before, what was decided, what a session did.\n" +
	"Start with search (filters project: after: before: role: model: branch:), then read_context or read_entry with a hit's sessionId and entryId; list_sessions lists a project's recent sessions."

func errorLine(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(response{JSONRPC: "2.0", ID: id, Error: &rpcError{code, msg}})
	return append(b, '\n')
}

// resultLine is a result's line; encoding/json escapes every control
// character in strings, so the line holds no other newline. A result
// that does not marshal (a bug) is answered as an internal error.
func (s *Server) resultLine(id json.RawMessage, result any) []byte {
	b, err := json.Marshal(response{JSONRPC: "2.0", ID: id, Result: result})
	if err != nil {
		s.o.Log.Error("mcp: marshal a result", "err", err)
		return errorLine(id, codeInternal, "internal error")
	}
	return append(b, '\n')
}
