package agent

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

//go:embed ext/resolve-resources.mjs
var resolveScript string

// ResourceState is one resource as pi's `pi config` lists it (pi's
// DefaultPackageManager.resolve): an extension, skill, prompt template or
// theme, whether pi loads it, and where it comes from
// (apitype.ResourceState, where the API's shapes are defined).
type ResourceState = apitype.ResourceState

// ResourceStates are pi's two views: Global is what `pi config` shows for
// the agent dir alone; Project, only for a trusted project, what pi loads
// there (project settings applied) (apitype.ResourceStates, where the API's
// shapes are defined).
type ResourceStates = apitype.ResourceStates

// resolveTimeout bounds the resource listing (one node start).
const resolveTimeout = 60 * time.Second

// ResourceStates is ResolveResources with the workers' pi and agent dir.
func (a *Service) ResourceStates(ctx context.Context, cwd string, trusted bool) (ResourceStates, error) {
	return ResolveResources(ctx, a.base, cwd, trusted)
}

// PackageCommand is RunPackageCommand with the workers' pi and agent dir.
func (a *Service) PackageCommand(ctx context.Context, cwd, verb, source string, local bool, timeout time.Duration) (PackageRun, error) {
	return RunPackageCommand(ctx, a.base, cwd, verb, source, local, timeout)
}

// ResolveResources asks pi's own package manager (offline: it installs
// nothing) which resources it resolves for cwd, through the node that
// runs pi o.Pi with o's agent dir; trusted says whether pi trusts the
// project (its trust.json), as `pi config` is told.
func ResolveResources(ctx context.Context, o Options, cwd string, trusted bool) (ResourceStates, error) {
	pi, err := o.findPi(ctx)
	if err != nil {
		return ResourceStates{}, err
	}
	root, node, err := pi.packageRoot()
	if err != nil {
		return ResourceStates{}, err
	}
	flag := "0"
	if trusted {
		flag = "1"
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	o.Cwd = cwd
	agentDir := o.AgentDir
	if agentDir == "" {
		agentDir = DefaultAgentDir()
	}
	cmd := o.piCommand(&Pi{Path: node}, []string{"--input-type=module", "-e", resolveScript, root, cwd, agentDir, flag}, true)
	out, err := run(ctx, cmd)
	if err != nil {
		return ResourceStates{}, fmt.Errorf("pi's resource listing: %w", err)
	}
	return decodeStates(out)
}

// findPi is o.Pi, else pi on PATH.
func (o *Options) findPi(ctx context.Context) (*Pi, error) {
	if o.Pi != nil {
		return o.Pi, nil
	}
	return Find(ctx, "")
}

// packageRoot is the pi-coding-agent folder behind the executable and
// the node that runs it.
func (p *Pi) packageRoot() (root, node string, err error) {
	script := p.Script
	if script == "" {
		if script, err = filepath.EvalSymlinks(p.Path); err != nil {
			return "", "", err
		}
	}
	for dir := filepath.Dir(script); ; dir = filepath.Dir(dir) {
		if _, ok := readPackageJSON(filepath.Join(dir, "package.json")); ok {
			root = dir
			break
		}
		if filepath.Dir(dir) == dir {
			return "", "", errors.New("pi's package folder was not found above " + script)
		}
	}
	node = p.Node
	if node == "" {
		if node, err = nodeFor(p.Path); err != nil {
			return "", "", err
		}
	}
	return root, node, nil
}

// run runs cmd, killing its process group when ctx ends, and returns
// its stdout, or an error with its stderr.
func run(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := runGroup(ctx, cmd); err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// runGroup runs cmd in its own process group, which it kills (every
// child: npm, git) when ctx ends first; the error is then ctx's.
func runGroup(ctx context.Context, cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return ctx.Err()
	}
}

// resolvedItem is one resource in the JSON pi's resolve() answers.
type resolvedItem struct {
	Path     string `json:"path"`
	Enabled  bool   `json:"enabled"`
	Metadata struct {
		Source  string `json:"source"`
		Scope   string `json:"scope"`
		Origin  string `json:"origin"`
		BaseDir string `json:"baseDir"`
	} `json:"metadata"`
}

// resolved is pi's ResolvedPaths.
type resolved struct {
	Extensions      []resolvedItem `json:"extensions"`
	Skills          []resolvedItem `json:"skills"`
	Prompts         []resolvedItem `json:"prompts"`
	Themes          []resolvedItem `json:"themes"`
	InstallFailures []struct {
		Source  string `json:"source"`
		Message string `json:"message"`
	} `json:"installFailures"`
}

// states flattens r in pi config's type order.
func (r *resolved) states() []ResourceState {
	out := []ResourceState{}
	for _, g := range []struct {
		key   string
		items []resolvedItem
	}{{"extensions", r.Extensions}, {"skills", r.Skills}, {"prompts", r.Prompts}, {"themes", r.Themes}} {
		for _, it := range g.items {
			m := it.Metadata
			out = append(out, ResourceState{Type: g.key, Path: it.Path, Enabled: it.Enabled,
				Scope: m.Scope, Origin: m.Origin, Source: m.Source, BaseDir: m.BaseDir})
		}
	}
	return out
}

func decodeStates(out []byte) (ResourceStates, error) {
	var v struct{ Global, Project *resolved }
	if err := json.Unmarshal(out, &v); err != nil || v.Global == nil {
		return ResourceStates{}, fmt.Errorf("pi's resource listing is not what piweb reads: %.200s", out)
	}
	st := ResourceStates{Global: v.Global.states()}
	failures := v.Global.InstallFailures
	if v.Project != nil {
		st.Project = v.Project.states()
		failures = append(failures, v.Project.InstallFailures...)
	}
	seen := map[string]bool{}
	for _, f := range failures {
		if w := f.Source + ": " + f.Message; !seen[w] {
			seen[w] = true
			st.InstallFailures = append(st.InstallFailures, w)
		}
	}
	return st, nil
}

// PackageRun is one `pi install` or `pi remove`: the command as a user
// would type it, what pi printed (stdout and stderr, as they came, the last
// 64 KiB), and how it ended (apitype.PackageRun, where the API's shapes are
// defined).
type PackageRun = apitype.PackageRun

// maxPackageOutput bounds what a PackageRun keeps of pi's output.
const maxPackageOutput = 64 << 10

// ErrPackageSource is a source piweb does not hand to pi: empty, with a
// line break, or starting with "-" (pi would read it as an option).
var ErrPackageSource = errs.New(errs.Invalid, "a package source is a name, URL or path on one line, not starting with -", "a package source is a name, URL or path on one line, not starting with -")

// RunPackageCommand runs `pi install <source> [-l]` or `pi remove <source>
// [-l]` (verb "install" or "remove") in cwd, with o's pi, agent dir and
// environment (the workers'), but online: a package may have to be
// fetched. pi writes settings.json itself. A run that outlasts timeout is
// killed with its children (npm, git) and reported as TimedOut.
func RunPackageCommand(ctx context.Context, o Options, cwd, verb, source string, local bool, timeout time.Duration) (PackageRun, error) {
	if verb != "install" && verb != "remove" {
		return PackageRun{}, fmt.Errorf("unknown package command %q", verb)
	}
	if source = strings.TrimSpace(source); source == "" || strings.HasPrefix(source, "-") || strings.ContainsAny(source, "\r\n\x00") {
		return PackageRun{}, ErrPackageSource
	}
	pi, err := o.findPi(ctx)
	if err != nil {
		return PackageRun{}, err
	}
	args := []string{verb, source}
	if local {
		args = append(args, "-l")
	}
	o.Cwd = cwd
	cmd := o.piCommand(pi, args, false)
	out := newTail(maxPackageOutput)
	cmd.Stdout, cmd.Stderr = out, out
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := PackageRun{Command: "pi " + strings.Join(args, " ")}
	err = runGroup(runCtx, cmd)
	res.Output = strings.ToValidUTF8(out.String(), "\uFFFD")
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case runCtx.Err() != nil && ctx.Err() == nil:
		res.TimedOut, res.ExitCode = true, -1
	default:
		return res, err
	}
	return res, nil
}
