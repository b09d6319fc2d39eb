package server

import (
	"context"
	"encoding/json"
	"net/http"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/errs"
)

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var req agent.CreateRequest
	if err := decodeBody(w, r, &req, maxPromptBody); err != nil {
		return err
	}
	if err := agent.ValidateCreate(&req); err != nil {
		return errs.Errorf(errs.Invalid, "%s", err.Error()) // a client's mistake, not logged
	}
	if err := s.checkFleetCreate(r, req.Cwd); err != nil {
		return err
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
		return errs.Errorf(errs.Invalid, "unknown or missing command type")
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
		return err
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
		return errs.Errorf(errs.Busy, "pi is busy; reload once it is idle")
	}
	if err := s.agent.Stop(r.Context(), m.Path); err != nil {
		return err
	}
	return ok(w, apitype.CommandAnswer{OK: true, Data: json.RawMessage("null")})
}

// checkLeaf refuses a command when the session moved on from the leaf
// the client was looking at (ops.CheckLeaf).
func (s *Server) checkLeaf(ctx context.Context, m Meta, exp json.RawMessage) error {
	var want string
	if json.Unmarshal(exp, &want) != nil {
		return errs.Errorf(errs.Invalid, "expectLeaf must be a string")
	}
	if err := s.ops.CheckLeaf(ctx, m, want); err != nil {
		return err
	}
	return nil
}
