package ops

import (
	"context"
	"sync"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/piconfig"
)

// Lister is what pi's RPC names for a folder (agent.Service has it).
type Lister interface {
	Resources(ctx context.Context, cwd string) ([]agent.Resource, error)
}

// Resources is the Settings page's listing of the resources of cwd (a
// checked absolute folder): what pi's RPC names (rl), what pi's files
// install (the project's only when pi trusts it) and what pi config
// resolves (rs, asked meanwhile). A failure to resolve is told in
// StatesError, not as the listing's; rl's errors are returned as they are.
func Resources(ctx context.Context, rl Lister, rs Resolver, agentDir, cwd string) (apitype.ResourceList, error) {
	pt, err := agent.CheckProjectTrust(agentDir, cwd)
	if err != nil {
		return apitype.ResourceList{}, fail(StepTrust, err)
	}
	var (
		wg     sync.WaitGroup
		states agent.ResourceStates
		serr   error
	)
	wg.Go(func() { states, serr = ResourceStates(ctx, rs, agentDir, cwd) })
	res, err := rl.Resources(ctx, cwd)
	wg.Wait()
	if err != nil {
		return apitype.ResourceList{}, err
	}
	project := ""
	if pt.Trusted {
		project = cwd
	}
	out := apitype.ResourceList{Resources: res, Installed: (&piconfig.Store{AgentDir: agentDir}).Installed(project), States: &states}
	if serr != nil {
		out.States, out.StatesError = nil, serr.Error()
	}
	return out, nil
}
