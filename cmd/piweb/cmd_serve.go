package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"piweb/internal/own"
	"piweb/internal/push"
	"runtime"
	"sync/atomic"
	"time"

	"piweb/internal/access"
	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/demo"
	"piweb/internal/fleet"
	"piweb/internal/server"
	"piweb/internal/terminal"
	"piweb/internal/web"
	"piweb/pisession"
)

// The serve command: `piweb` with no arguments runs it.

// DefaultAddr is where piweb listens unless told otherwise: loopback only.
const DefaultAddr = "127.0.0.1:30141"

type serveFlags struct {
	addr, agentDir, pi, token, webDir string
	hosts, proxies                    stringList
	open, demo, dev, noTerminal       bool
	modelTitles                       bool
	fleet                             fleetFlags
	fleetKey                          access.FleetKey
}

func runServe(ctx context.Context, e *env, args []string) error {
	f, err := parseServe(e, args)
	if err != nil {
		return err
	}
	return serve(ctx, e, f)
}

// parseServe reads serve's flags; what it leaves empty (the agent dir)
// serve resolves from the environment.
func parseServe(e *env, args []string) (serveFlags, error) {
	var f serveFlags
	fs := newFlags("serve", e)
	fs.StringVar(&f.addr, "addr", DefaultAddr, "listen `address`; a non-loopback one requires a token")
	fs.StringVar(&f.agentDir, "agent-dir", "", "pi's agent `dir` (default $PI_CODING_AGENT_DIR or ~/.pi/agent)")
	fs.StringVar(&f.pi, "pi", "", "`path` of the pi executable (default: pi on PATH)")
	fs.Var(&f.hosts, "host", "also accept requests for this host `name` (repeatable; loopback, the --addr host and this machine's names are always accepted)")
	fs.Var(&f.proxies, "proxy", "a reverse proxy's `address` in front of piweb (repeatable): its X-Forwarded-For names the client whose failed sign-ins are throttled")
	fs.StringVar(&f.token, "token", "", "require this `token`, reusable (beyond loopback without it, piweb prints one-time sign-in links)")
	fs.BoolVar(&f.open, "open", false, "open the app in the browser")
	fs.BoolVar(&f.demo, "demo", false, "run on a throwaway agent dir with sample sessions and a built-in demo model")
	fs.BoolVar(&f.modelTitles, "model-titles", false, "name every new session by a title pi's default model writes from its first message (one short extra request), whatever the Settings switch says")
	fs.BoolVar(&f.noTerminal, "no-terminal", false, "turn the Terminal panel off (it runs shells in sessions' folders for the signed-in owner)")
	fs.BoolVar(&f.dev, "dev", false, "serve the web app from internal/web/static on disk")
	fs.StringVar(&f.webDir, "web-dir", "", "with -dev, the static `dir` to serve")
	addFleetFlags(fs, &f.fleet)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return f, err
	}
	if f.fleet.url != "" {
		if err := f.fleet.check(); err != nil {
			return f, err
		}
	}
	if f.fleetKey, err = f.fleet.readKey(); err != nil {
		return f, err
	}
	if host := f.fleet.advertiseHost(); host != "" {
		f.hosts = append(f.hosts, host) // other machines name this piweb so
	}
	if err := server.CheckToken(f.token, f.addr); err != nil {
		return f, err
	}
	return f, wantArgs(pos, 0, 0, usages["serve"])
}

func serve(ctx context.Context, e *env, f serveFlags) error {
	agentDir := f.agentDir
	if agentDir == "" {
		agentDir = pisession.AgentDir(e.getenv)
	}
	if !f.demo && f.agentDir == "" && len(pisession.SessionFiles(agentDir)) == 0 && !demoLeft(e) {
		// A new user sees a full app instead of an empty one; one who
		// left the demo does not see it again.
		fmt.Fprintf(e.stdout, "No pi sessions in %s yet: showing the built-in demo. Chat with pi in a terminal, then switch from the demo's banner.\n", agentDir)
		f.demo = true
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hl := newHandoff(ln)
	defer hl.Close()
	keys := access.NewKeys(f.token) // one sign-in across the demo and what follows it
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	for {
		left, err := serveOnce(ctx, e, f, agentDir, hl, keys, logger)
		if err != nil || !left {
			return err
		}
		// The page's "Leave the demo": the user's own sessions, same address.
		f.demo = false
		fmt.Fprintf(e.stdout, "Left the demo.\n")
		markDemoLeft(e, logger)
	}
}

// demoLeftFile, under piweb's config dir, records that the user left the
// demo: a later start with no sessions shows the empty app, not the demo.
func demoLeftFile(e *env) string { return filepath.Join(configDir(e), "demo-left.json") }

func demoLeft(e *env) bool {
	_, err := os.Stat(demoLeftFile(e))
	return err == nil
}

// markDemoLeft writes demoLeftFile; failing, the next start with no
// sessions shows the demo again, which the log says.
func markDemoLeft(e *env, logger *slog.Logger) {
	if err := own.WritePrivateJSON(demoLeftFile(e), true); err != nil {
		logger.Warn("cannot record leaving the demo", "err", err)
	}
}

// serveOnce serves agentDir (or, with f.demo, a fresh demo whose real dir
// is agentDir) on hl until ctx ends or the page leaves the demo, which it
// reports as left.
func serveOnce(ctx context.Context, e *env, f serveFlags, agentDir string, hl *handoff, keys *access.Keys,
	logger *slog.Logger) (left bool, err error) {
	realDir, indexPath := "", ""
	if f.demo {
		d, err := demo.Setup()
		if err != nil {
			return false, err
		}
		realDir = agentDir
		defer closeDemo(e, d, realDir)
		agentDir = d.AgentDir
		indexPath = filepath.Join(filepath.Dir(agentDir), "index.db")
		fmt.Fprintf(e.stdout, "Demo: sample sessions in %s, demo model at %s\n", d.Root, d.LLM.URL())
	}
	// The index lives in a temporary dir when its place is unusable.
	cat, err := catalog.Open(ctx, catalog.Options{AgentDir: agentDir, IndexPath: indexPath, Log: logger})
	if err != nil {
		return false, err
	}
	defer cat.Close()
	rctx, leave := context.WithCancel(ctx)
	defer leave()
	var leaving atomic.Bool
	var fl *fleet.Service // nil: no fleet
	cfg := app.Config{AgentDir: agentDir, Catalog: cat, Agent: newAgent(ctx, e, f, agentDir), Terminals: newTerminals(f),
		Push: openPush(e, logger), ModelTitles: f.modelTitles, Log: logger}
	if f.fleet.url != "" && !f.demo { // the demo's sessions are not the machine's
		var stop func()
		fl, stop = startFleet(e, f.fleet, cat, cfg.Agent.Pi())
		defer stop()
		cfg.Fleet = fl // its pushes reach the pages as fleet_changed
	}
	if !f.demo { // the demo's marks, preferences, pins, archive and share links stay in memory
		dir := configDir(e)
		cfg.Marks = openOwn(logger, "read marks and mutes", func() (*own.AttentionStore, error) { return own.OpenAttention(dir, time.Now()) })
		cfg.Prefs = openOwn(logger, "piweb's preferences", func() (*own.PrefsStore, error) { return own.OpenPrefs(dir) })
		cfg.Order = openOwn(logger, "pins and archive", func() (*own.OrderStore, error) { return own.OpenOrder(dir) })
		cfg.Shares = openOwn(logger, "share links", func() (*own.ShareStore, error) { return own.OpenShares(dir) })
	}
	parts := app.New(cfg) // the one place piweb's parts are built and started
	defer parts.Close()
	opts := server.Options{Addr: listenAddr(f.addr, hl.Addr()), Hosts: f.hosts, Proxies: f.proxies, Token: f.token,
		SignInKeys: keys, Login: needsLogin(f.addr), Web: web.Handler(f.dev, f.webDir), Log: logger, Demo: f.demo,
		DemoRealDir: realDir, Metrics: newMetrics(cat, parts, fl)}
	if exe, err := os.Executable(); err == nil {
		opts.Executable = exe // the mcp.json entry Settings offers runs this binary
	}
	if fl != nil {
		opts.Fleet, opts.FleetKey = fl, f.fleetKey
		if fl.Reader != nil {
			opts.Peers = fl.Reader
		}
	}
	if f.demo {
		opts.LeaveDemo = func() { leaving.Store(true); leave() }
	}
	links := &signIn{out: e.stdout, chosen: f.token != ""}
	opts.OnLogin = links.used
	srv := server.New(opts, parts)
	url := links.first(srv, appBase(hl.Addr(), f.addr))
	fmt.Fprintf(e.stdout, "piweb serving %s on %s\n", agentDir, url)
	links.explain()
	if f.open || (server.IsLoopback(f.addr) && !server.PeerCheck() && !leaving.Load()) {
		// Where loopback needs sign-in too, the link is opened for the user.
		openBrowser(url)
	}
	err = srv.Serve(rctx, hl.Next())
	if errors.Is(err, context.Canceled) || errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return leaving.Load() && ctx.Err() == nil, err
}

// listenAddr is addr with the port the listener got (for port 0), so
// that every server of a run names its sign-in cookie after that port
// and a browser signed in to the demo stays signed in after it.
func listenAddr(addr string, got net.Addr) string {
	host, _, err := net.SplitHostPort(addr)
	_, port, gerr := net.SplitHostPort(got.String())
	if err != nil || gerr != nil {
		return addr
	}
	return net.JoinHostPort(host, port)
}

// closeDemo ends the demo without deleting what the user made: sessions
// started in a real folder move to the real agent dir, where pi keeps
// them; if one cannot, the demo folder stays.
func closeDemo(e *env, d *demo.Demo, realDir string) {
	kept, err := d.KeepUserSessions(realDir)
	for _, p := range kept {
		fmt.Fprintf(e.stdout, "Kept the session you started in the demo: %s\n", p)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "piweb: %v\n", err)
	}
	if err := d.Close(); err != nil {
		fmt.Fprintf(e.stderr, "piweb: %v\n", err)
	}
}

// needsLogin says when every client must sign in: beyond loopback, and on
// loopback too where the platform cannot tell which OS user a local client
// is (server.PeerCheck); on Linux piweb refuses other users' loopback
// connections instead and its own user needs no sign-in.
func needsLogin(addr string) bool {
	return !server.IsLoopback(addr) || !server.PeerCheck()
}

// signIn prints the sign-in links of a server that requires sign-in: the
// first with the serving line, and a fresh one-time link each time one was
// used, for the next browser.
type signIn struct {
	out    io.Writer
	chosen bool // the user gave --token: its link is reusable
	srv    *server.Server
	base   string
}

// first returns the URL to print first: the app, or its sign-in link.
func (l *signIn) first(srv *server.Server, base string) string {
	l.srv, l.base = srv, base
	if link := srv.LoginLink(); link != "" {
		return base + link
	}
	l.srv = nil
	return base + "/"
}

func (l *signIn) explain() {
	switch {
	case l.srv == nil:
	case l.chosen:
		fmt.Fprintln(l.out, "Open the link above once in each browser: it signs that browser in.")
	default:
		fmt.Fprintln(l.out, "The link above signs in one browser, once; piweb prints a new one each time it is used.")
	}
}

// used is the server's OnLogin.
func (l *signIn) used(remote string) {
	fmt.Fprintf(l.out, "A browser at %s signed in. For another browser, this link works once: %s%s\n",
		remote, l.base, l.srv.LoginLink())
}

// newAgent finds pi; without it piweb still browses and says how to
// install pi.
func newAgent(ctx context.Context, e *env, f serveFlags, agentDir string) agent.Adapter {
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pi, err := agent.Find(fctx, f.pi)
	if err != nil {
		msg := err.Error()
		fmt.Fprintf(e.stderr, "piweb: %v\n", err)
		if f.demo {
			fmt.Fprintln(e.stderr, demo.NoPiHelp(agent.InstallHint))
		}
		return agent.NoService{Status: agent.PiStatus{Error: &msg, Install: agent.InstallHint}}
	}
	fmt.Fprintf(e.stdout, "Using pi %s at %s\n", pi.Version, pi.Path)
	a, err := agent.NewService(agent.Config{Base: agent.Options{Pi: pi, AgentDir: agentDir},
		BridgeDir: agent.DefaultBridgeDir(), Spare: true,
		OutsidePoll: -1}) // the server hands it the index's reads of new lines (FileGrew)
	if err != nil {
		msg := err.Error()
		fmt.Fprintf(e.stderr, "piweb: %v\n", err)
		return agent.NoService{Status: agent.PiStatus{Error: &msg, Install: agent.InstallHint}}
	}
	return a
}

// appBase is the scheme, host and port to print.
func appBase(a net.Addr, listen string) string {
	host, port, _ := net.SplitHostPort(a.String())
	if lh, _, err := net.SplitHostPort(listen); err == nil && lh != "" {
		if ip := net.ParseIP(lh); ip == nil || !ip.IsUnspecified() {
			host = lh
		}
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// openBrowser opens url in the user's browser without waiting for it; a
// variable so that tests can see what --open opens.
var openBrowser = func(url string) {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name = "explorer"
	}
	if cmd := exec.Command(name, url); cmd.Start() == nil {
		go cmd.Wait()
	}
}

// newTerminals runs the Terminal panel's shells unless --no-terminal; the
// server closes it (every shell ends) when it stops.
func newTerminals(f serveFlags) *terminal.Manager {
	if f.noTerminal {
		return nil
	}
	return terminal.New(terminal.Options{})
}

// configDir is piweb's config dir: $XDG_CONFIG_HOME/piweb, else
// ~/.config/piweb.
func configDir(e *env) string {
	dir := e.getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home := e.getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "piweb")
}

// openPush opens Web Push's keys and subscriptions under piweb's config
// dir; nothing is written there until a page asks for the key. Without
// it, piweb runs without push.
func openPush(e *env, logger *slog.Logger) *push.Service {
	p, err := push.Open(configDir(e), push.Options{Log: logger})
	if err != nil {
		logger.Warn("Web Push is off", "err", err)
		return nil
	}
	return p
}

// openOwn opens one of piweb's own small files under its config dir
// (written on the first change); a file that cannot be read leaves what
// it holds in memory for this run (a nil store), the file untouched, and
// says so once in the log.
func openOwn[T any](logger *slog.Logger, what string, open func() (*T, error)) *T {
	v, err := open()
	if err != nil {
		logger.Warn(what+" are kept in memory", "err", err)
		return nil
	}
	return v
}
