package server

import (
	"encoding/json"
	"net/http"

	"piweb/internal/apitype"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
	"piweb/internal/terminal"
)

// Terminals of a session (internal/terminal does the work). Starting a
// shell is code execution: only a POST starts one (JSON, Origin checked
// by guard), and the WebSocket GET only attaches to a running one, after
// the same Host, fetch-metadata, sign-in and Origin checks.

var errTerminalsOff = errs.Errorf(errs.Forbidden, "terminals are off (piweb was started with --no-terminal)")

func (s *Server) listTerminals(w http.ResponseWriter, r *http.Request, m Meta) error {
	if s.app.Terminals == nil {
		return ok(w, apitype.TerminalList{Terminals: []terminal.Info{}})
	}
	return ok(w, apitype.TerminalList{Enabled: true, Terminals: s.app.Terminals.List(m.Key)})
}

func (s *Server) startTerminal(w http.ResponseWriter, r *http.Request) error {
	if s.app.Terminals == nil {
		return errTerminalsOff
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	var req apitype.StartTerminal
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		return errs.Errorf(errs.Invalid, "bad request body")
	}
	root, _, err := cwdfs.Resolve(m.Cwd, "")
	if err != nil {
		return err
	}
	t, err := s.app.Terminals.Start(m.Key, root, req.Cols, req.Rows)
	if err != nil {
		return err
	}
	return ok(w, t.Info())
}

// term finds the request's terminal of its session.
func (s *Server) term(r *http.Request) (*terminal.Term, error) {
	if s.app.Terminals == nil {
		return nil, errTerminalsOff
	}
	m, err := s.lookup(r)
	if err != nil {
		return nil, err
	}
	return s.app.Terminals.Get(m.Key, r.PathValue("tid"))
}

func (s *Server) terminalSocket(w http.ResponseWriter, r *http.Request) error {
	// guard checks Origin on state changes only; this GET is one.
	if !s.originAllowed(r) {
		return errs.Errorf(errs.Forbidden, "cross-origin request refused")
	}
	t, err := s.term(r)
	if err != nil {
		return err
	}
	if err := terminal.Serve(w, r, t); err != nil {
		s.log.Info("terminal socket", "error", err)
	}
	return nil
}

func (s *Server) closeTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.term(r)
	if err != nil {
		return err
	}
	t.Close()
	return ok(w, apitype.OK{OK: true})
}
