package server

import (
	"context"
	"net/http"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/ops"
)

// packager is the agent's PackageCommand (pi install / pi remove).
type packager interface {
	PackageCommand(ctx context.Context, cwd, verb, source string, local bool, timeout time.Duration) (agent.PackageRun, error)
}

// packageTimeout bounds a pi install or remove (npm or git may fetch).
const packageTimeout = 5 * time.Minute

func (s *Server) getResources(w http.ResponseWriter, r *http.Request) error {
	cwd, err := trustCwd(r.URL.Query().Get("cwd"))
	if err != nil {
		return err
	}
	rl, canList := s.agent.(ops.Lister)
	rs, canResolve := s.agent.(ops.Resolver)
	if !canList || !canResolve {
		return agent.ErrPiMissing
	}
	a, err := ops.Resources(r.Context(), rl, rs, s.agentDir, cwd)
	if err == nil && s.opts.Executable != "" {
		a.PiwebMCP = ops.PiwebMCP(s.agentDir, s.opts.Executable, a.Installed)
	}
	return answer(w, a, err)
}

func (s *Server) putResource(w http.ResponseWriter, r *http.Request) error {
	body, cwd, err := cwdRequest(w, r, func(b apitype.ResourceToggle) string { return b.Cwd })
	if err != nil {
		return err
	}
	rs, canResolve := s.agent.(ops.Resolver)
	if !canResolve {
		return agent.ErrPiMissing
	}
	var st agent.ResourceStates
	if body.Project != "" {
		st, err = ops.SetProjectOverride(r.Context(), rs, s.agentDir, cwd, body.Type, body.Path, body.Project)
	} else {
		st, err = ops.SetResourceEnabled(r.Context(), rs, s.agentDir, cwd, body.Type, body.Path, body.Enabled)
	}
	return answer(w, st, err)
}

func (s *Server) postPackage(w http.ResponseWriter, r *http.Request) error {
	body, cwd, err := cwdRequest(w, r, func(b apitype.PackageRequest) string { return b.Cwd })
	if err != nil {
		return err
	}
	p, can := s.agent.(packager)
	if !can {
		return agent.ErrPiMissing
	}
	// A closed tab does not stop pi half-way through npm or git.
	run, err := p.PackageCommand(context.WithoutCancel(r.Context()), cwd, body.Action, body.Source, body.Local, s.opts.packageTimeout())
	if err != nil {
		return err
	}
	s.app.ForgetModels() // a package may bring providers
	return ok(w, run)
}

func (o Options) packageTimeout() time.Duration {
	if o.PackageTimeout > 0 {
		return o.PackageTimeout
	}
	return packageTimeout
}

// postPiwebMCP makes this piweb one of pi's MCP servers.
func (s *Server) postPiwebMCP(w http.ResponseWriter, r *http.Request) error {
	_, cwd, err := cwdRequest(w, r, func(b apitype.AddPiwebMCP) string { return b.Cwd })
	if err != nil {
		return err
	}
	if s.opts.Executable == "" {
		return errs.E("server.postPiwebMCP", errs.NotFound, "this piweb does not know where its executable is")
	}
	installed, err := ops.AddPiwebMCP(s.agentDir, cwd, s.opts.Executable)
	return answer(w, installed, err)
}

func (s *Server) putMCP(w http.ResponseWriter, r *http.Request) error {
	body, cwd, err := cwdRequest(w, r, func(b apitype.MCPToggle) string { return b.Cwd })
	if err != nil {
		return err
	}
	installed, err := ops.SetMCPEnabled(s.agentDir, cwd, body.Scope == "project", body.Name, body.Enabled, body.Override)
	return answer(w, installed, err)
}
