package ops

import (
	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/piconfig"
	"piweb/internal/pilogin"
)

// Config is pi's configuration under agentDir as the settings page shows
// it: the global settings, and with cwd (a checked absolute folder) the
// project's with pi's trust of it.
func Config(agentDir, cwd string) (apitype.ConfigView, error) {
	pc := &piconfig.Store{AgentDir: agentDir}
	v := apitype.ConfigView{Global: pc.ReadSettings(""), Schema: piconfig.Settings, Auth: pc.ReadAuth(),
		Providers: piconfig.Providers, Custom: pc.CustomProviders(), LoginCommand: pilogin.CommandLine(agentDir)}
	if cwd == "" {
		return v, nil
	}
	pt, err := agent.CheckProjectTrust(agentDir, cwd)
	if err != nil {
		return v, fail(StepTrust, err)
	}
	p := pc.ReadSettings(cwd)
	v.Project, v.Trust = &p, &pt
	return v, nil
}

// Trusted says whether pi trusts the project at cwd (false for "").
func Trusted(agentDir, cwd string) (bool, error) {
	if cwd == "" {
		return false, nil
	}
	pt, err := agent.CheckProjectTrust(agentDir, cwd)
	return pt.Trusted, fail(StepTrust, err)
}
