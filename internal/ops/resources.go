package ops

import (
	"context"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/piconfig"
)

// Resolver is what pi resolves for a folder (agent.Service has it).
type Resolver interface {
	ResourceStates(ctx context.Context, cwd string, trusted bool) (agent.ResourceStates, error)
}

// ErrNoSuchResource is a resource pi does not resolve for the folder.
var ErrNoSuchResource = errs.New(errs.NotFound, "pi does not load that resource for this folder", "pi does not load that resource for this folder")

// ResourceStates is what pi resolves for cwd (a checked absolute folder),
// its project part only when pi trusts the project, with each project
// item's override and whether it is inherited.
func ResourceStates(ctx context.Context, rs Resolver, agentDir, cwd string) (agent.ResourceStates, error) {
	trusted, err := Trusted(agentDir, cwd)
	if err != nil {
		return agent.ResourceStates{}, err
	}
	return resolve(ctx, rs, agentDir, cwd, trusted)
}

// resolve asks pi and annotates the project view.
func resolve(ctx context.Context, rs Resolver, agentDir, cwd string, trusted bool) (agent.ResourceStates, error) {
	st, err := rs.ResourceStates(ctx, cwd, trusted)
	if err != nil || st.Project == nil {
		return st, err
	}
	pc := &piconfig.Store{AgentDir: agentDir}
	for i := range st.Project {
		p := &st.Project[i]
		p.Inherited = inherited(st, *p)
		p.Override = pc.ProjectOverride(cwd, refOf(*p))
	}
	return st, nil
}

// inherited is pi config's isInheritedGlobalItem: a user resource, or
// one the global view lists too.
func inherited(st agent.ResourceStates, r agent.ResourceState) bool {
	if r.Scope == "user" {
		return true
	}
	for _, g := range st.Global {
		if g.Type == r.Type && g.Path == r.Path {
			return true
		}
	}
	return false
}

func refOf(r agent.ResourceState) piconfig.ResourceRef {
	return piconfig.ResourceRef{Type: r.Type, Path: r.Path, Scope: r.Scope, Origin: r.Origin, Source: r.Source, BaseDir: r.BaseDir}
}

// SetProjectOverride sets the override of the resource of type typ at
// path in the trusted project at cwd as `pi config --local` does
// (piconfig.SetProjectOverride; state "inherit", "load" or "unload"),
// after finding it in pi's project view, and answers pi's view after.
func SetProjectOverride(ctx context.Context, rs Resolver, agentDir, cwd, typ, path, state string) (agent.ResourceStates, error) {
	trusted, err := Trusted(agentDir, cwd)
	if err != nil {
		return agent.ResourceStates{}, err
	}
	if !trusted {
		return agent.ResourceStates{}, piconfig.ErrUntrusted
	}
	st, err := rs.ResourceStates(ctx, cwd, trusted)
	if err != nil {
		return st, err
	}
	var found *agent.ResourceState
	for i, r := range st.Project {
		if r.Type == typ && r.Path == path {
			found = &st.Project[i]
		}
	}
	if found == nil {
		return st, ErrNoSuchResource
	}
	pc := &piconfig.Store{AgentDir: agentDir}
	if err := pc.SetProjectOverride(cwd, trusted, refOf(*found), inherited(st, *found), state); err != nil {
		return st, err
	}
	return resolve(ctx, rs, agentDir, cwd, trusted)
}

// SetResourceEnabled enables or disables the resource of type typ at path
// as `pi config` does, after finding it among what pi resolves for cwd
// (so that only a resource pi names is written, with pi's own metadata
// for it): a user resource in the global settings (pi config's global
// mode, piconfig.SetResourceEnabled), a project one as the project's
// load or unload override (its project mode, piconfig.SetProjectOverride;
// pi must trust the project). It answers pi's view after.
func SetResourceEnabled(ctx context.Context, rs Resolver, agentDir, cwd, typ, path string, enabled bool) (agent.ResourceStates, error) {
	trusted, err := Trusted(agentDir, cwd)
	if err != nil {
		return agent.ResourceStates{}, err
	}
	st, err := rs.ResourceStates(ctx, cwd, trusted)
	if err != nil {
		return st, err
	}
	r, found := findResource(st, typ, path)
	if !found {
		return st, ErrNoSuchResource
	}
	pc := &piconfig.Store{AgentDir: agentDir}
	if r.Scope == "project" { // pi config toggles it only in project mode
		state := piconfig.OverrideUnload
		if enabled {
			state = piconfig.OverrideLoad
		}
		err = pc.SetProjectOverride(cwd, trusted, refOf(r), inherited(st, r), state)
	} else {
		err = pc.SetResourceEnabled(refOf(r), enabled)
	}
	if err != nil {
		return st, err
	}
	return resolve(ctx, rs, agentDir, cwd, trusted)
}

// findResource looks in the project's view first (it has the project's
// own resources), then the global one.
func findResource(st agent.ResourceStates, typ, path string) (agent.ResourceState, bool) {
	for _, list := range [][]agent.ResourceState{st.Project, st.Global} {
		for _, r := range list {
			if r.Type == typ && r.Path == path {
				return r, true
			}
		}
	}
	return agent.ResourceState{}, false
}

// PiwebMCPName is the server name Settings gives piweb in mcp.json.
const PiwebMCPName = "piweb"

// PiwebMCP is the mcp.json entry that runs exe (this piweb) as pi's MCP
// server, exposed directly (four small read-only tools), and whether
// installed (the agent dir's and project's servers) has it already: a
// user server of that name, or one running exe mcp.
func PiwebMCP(agentDir, exe string, installed []piconfig.Installed) *apitype.PiwebMCP {
	p := &apitype.PiwebMCP{Name: PiwebMCPName, Path: (&piconfig.Store{AgentDir: agentDir}).MCPPath(""),
		Config: apitype.MCPServerConfig{Command: exe, Args: []string{"mcp"}, Exposure: "direct"}}
	for _, x := range installed {
		if x.Kind == "mcp" && x.Scope == "user" && (x.Name == p.Name || x.Detail == exe+" mcp") {
			p.Added = true
		}
	}
	return p
}

// AddPiwebMCP writes PiwebMCP's entry into the agent dir's mcp.json and
// returns the installed list after (cwd's project part when trusted).
func AddPiwebMCP(agentDir, cwd, exe string) ([]piconfig.Installed, error) {
	trusted, err := Trusted(agentDir, cwd)
	if err != nil {
		return nil, err
	}
	pc := &piconfig.Store{AgentDir: agentDir}
	c := PiwebMCP(agentDir, exe, nil).Config
	if err := pc.AddMCPServer(PiwebMCPName, c.Command, c.Args, c.Exposure); err != nil {
		return nil, err
	}
	if !trusted {
		cwd = ""
	}
	return pc.Installed(cwd), nil
}

// SetMCPEnabled enables or disables MCP server name in the mcp.json of
// the agent dir, or with project that of cwd's .pi (pi must trust it), as
// pi's /mcp does (piconfig.SetMCPEnabled; override: "in this project" for
// a global server), and answers the MCP servers, packages and extensions
// pi's files name for cwd after.
func SetMCPEnabled(agentDir, cwd string, project bool, name string, enabled, override bool) ([]piconfig.Installed, error) {
	trusted, err := Trusted(agentDir, cwd)
	if err != nil {
		return nil, err
	}
	scopeCwd := ""
	if project {
		scopeCwd = cwd
	}
	pc := &piconfig.Store{AgentDir: agentDir}
	if err := pc.SetMCPEnabled(scopeCwd, trusted, name, enabled, override); err != nil {
		return nil, err
	}
	if !trusted {
		cwd = ""
	}
	return pc.Installed(cwd), nil
}
