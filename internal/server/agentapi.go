package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"piweb/internal/agent"
	"piweb/internal/apitype"
)

// agentErr words the agent's errors that carry pi's own reason (only its
// first line: a JavaScript stack under it would name pi's install paths),
// and leaves the rest to the one error table (classify); pi's wording is
// never matched here.
func agentErr(err error) error {
	var (
		ce *agent.CommandError
		cg *agent.CwdGoneError
		rf *agent.RefusedError
		re *agent.RequestError
	)
	if e := classify(err); e.Kind != Internal {
		return e
	}
	switch {
	case errors.As(err, &cg):
		return wrap(Invalid, err, "the session's working directory no longer exists")
	case errors.As(err, &rf):
		return wrap(Invalid, err, "pi refused: "+clientMessage(rf))
	case errors.As(err, &re):
		return wrap(Invalid, err, re.Msg)
	case errors.As(err, &ce):
		return wrap(Invalid, err, "pi refused "+ce.Command+": "+ce.Reason())
	}
	return wrap(Internal, err, "the agent failed")
}

// clientMessage is pi's reason for refusing to start, first line only.
func clientMessage(rf *agent.RefusedError) string {
	msg, _, _ := strings.Cut(rf.Reason, "\n")
	return msg
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var req agent.CreateRequest
	if err := decodeBody(w, r, &req, maxPromptBody); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return errorf(Invalid, "%s", err.Error()) // a client's mistake, not logged
	}
	a, err := s.ops.Create(r.Context(), req)
	return answer(w, a, err)
}

func (s *Server) command(w http.ResponseWriter, r *http.Request) error {
	var raw map[string]json.RawMessage
	if err := decodeBody(w, r, &raw, maxPromptBody); err != nil {
		return err
	}
	var typ string
	if json.Unmarshal(raw["type"], &typ) != nil || !agent.Relayed(typ) {
		return errorf(Invalid, "unknown or missing command type")
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	if exp, found := raw["expectLeaf"]; found {
		if err := s.checkLeaf(r.Context(), m, exp); err != nil {
			return err
		}
		if !agent.IsPrompt(typ) && typ != "navigate" {
			delete(raw, "expectLeaf") // a prompt or a move takes it to the worker
		}
	}
	delete(raw, "id") // the supervisor numbers commands itself
	if typ == "reload" {
		return s.reloadWorker(w, r, m)
	}
	cmd, _ := json.Marshal(raw)
	data, err := s.agent.Command(r.Context(), m.Path, cmd)
	if err != nil {
		return agentErr(err)
	}
	if data == nil {
		data = json.RawMessage("null")
	}
	return ok(w, apitype.CommandAnswer{OK: true, Data: data})
}

// reloadWorker is pi's /reload, which RPC lacks: it stops the session's
// idle worker, so that the next command starts a pi that reads its
// extensions, skills, prompts, themes and context files again.
func (s *Server) reloadWorker(w http.ResponseWriter, r *http.Request, m Meta) error {
	if s.agent.Running(m.Path) {
		return errorf(Busy, "pi is busy; reload once it is idle")
	}
	if err := s.agent.Stop(r.Context(), m.Path); err != nil {
		return agentErr(err)
	}
	return ok(w, apitype.CommandAnswer{OK: true, Data: json.RawMessage("null")})
}

// checkLeaf refuses a command when the session moved on from the leaf
// the client was looking at (ops.CheckLeaf).
func (s *Server) checkLeaf(ctx context.Context, m Meta, exp json.RawMessage) error {
	var want string
	if json.Unmarshal(exp, &want) != nil {
		return errorf(Invalid, "expectLeaf must be a string")
	}
	if err := s.ops.CheckLeaf(ctx, m, want); err != nil {
		return opsErr(err)
	}
	return nil
}
