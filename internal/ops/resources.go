package ops

import (
	"context"
	"errors"

	"piweb/internal/agent"
	"piweb/internal/piconfig"
)

// Resolver is what pi resolves for a folder (agent.Service has it).
type Resolver interface {
	ResourceStates(ctx context.Context, cwd string, trusted bool) (agent.ResourceStates, error)
}

// ErrNoSuchResource is a resource pi does not resolve for the folder.
var ErrNoSuchResource = errors.New("pi does not load that resource for this folder")

// ResourceStates is what pi resolves for cwd (a checked absolute folder),
// its project part only when pi trusts the project.
func ResourceStates(ctx context.Context, rs Resolver, agentDir, cwd string) (agent.ResourceStates, error) {
	trusted, err := Trusted(agentDir, cwd)
	if err != nil {
		return agent.ResourceStates{}, err
	}
	return rs.ResourceStates(ctx, cwd, trusted)
}

// SetResourceEnabled enables or disables the resource of type typ at path
// as `pi config` does (piconfig.SetResourceEnabled), after finding it
// among what pi resolves for cwd (so that only a resource pi names is
// written, with pi's own metadata for it), and answers pi's view after.
func SetResourceEnabled(ctx context.Context, rs Resolver, agentDir, cwd, typ, path string, enabled bool) (agent.ResourceStates, error) {
	trusted, err := Trusted(agentDir, cwd)
	if err != nil {
		return agent.ResourceStates{}, err
	}
	st, err := rs.ResourceStates(ctx, cwd, trusted)
	if err != nil {
		return st, err
	}
	ref, found := findResource(st, typ, path)
	if !found {
		return st, ErrNoSuchResource
	}
	pc := &piconfig.Store{AgentDir: agentDir}
	if err := pc.SetResourceEnabled(cwd, trusted, ref, enabled); err != nil {
		return st, err
	}
	return rs.ResourceStates(ctx, cwd, trusted)
}

// findResource looks in the project's view first (it has the project's
// own resources), then the global one.
func findResource(st agent.ResourceStates, typ, path string) (piconfig.ResourceRef, bool) {
	for _, list := range [][]agent.ResourceState{st.Project, st.Global} {
		for _, r := range list {
			if r.Type == typ && r.Path == path {
				return piconfig.ResourceRef{Type: r.Type, Path: r.Path, Scope: r.Scope, Origin: r.Origin,
					Source: r.Source, BaseDir: r.BaseDir}, true
			}
		}
	}
	return piconfig.ResourceRef{}, false
}
