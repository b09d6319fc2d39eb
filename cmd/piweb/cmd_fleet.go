package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime/debug"
	"time"

	"piweb/internal/access"
	"piweb/internal/agent"
	"piweb/internal/catalog"
	"piweb/internal/fleet"
	"piweb/pisession"
)

// The fleet (issue 22): serve's --fleet flags push this machine's sessions
// into a shared PostgreSQL database; `piweb fleet status` reports on it.

// fleetFlags are serve's fleet flags, also read by `piweb fleet status`.
type fleetFlags struct {
	url, machine, share, advertise, keyFile string
}

func addFleetFlags(fs *flag.FlagSet, f *fleetFlags) {
	fs.StringVar(&f.url, "fleet", "", "push this machine's sessions to the fleet's PostgreSQL `URL` (postgres://ROLE:PASSWORD@HOST/DB); off by default")
	fs.StringVar(&f.machine, "machine", "", "this machine's `name` in the fleet (default: the hostname)")
	fs.StringVar(&f.share, "fleet-share", "", "what to push: full (listing, usage, text, lines; the default) or meta (listing and usage only)")
	fs.StringVar(&f.advertise, "fleet-advertise", "", "the `URL` where the fleet's other machines reach this piweb")
	fs.StringVar(&f.keyFile, "fleet-key-file", "", "the fleet key's `file` (mode 0600, yours; the same on every machine): lets this piweb drive other machines' sessions and them drive this one's")
}

// check validates the flags and fills the machine name.
func (f *fleetFlags) check() error {
	if f.share == "" {
		f.share = fleet.ShareFull
	}
	if f.share != fleet.ShareFull && f.share != fleet.ShareMeta {
		return fmt.Errorf("--fleet-share must be full or meta, not %q", f.share)
	}
	if u, err := url.Parse(f.advertise); f.advertise != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return fmt.Errorf("--fleet-advertise must be an http:// or https:// URL, not %q", f.advertise)
	}
	if f.machine == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			return errors.New("--machine is needed: the hostname is unknown")
		}
		f.machine = h
	}
	return nil
}

// readKey reads --fleet-key-file (access.ReadFleetKey): a key that is not
// safe refuses the start.
func (f *fleetFlags) readKey() (access.FleetKey, error) {
	switch {
	case f.keyFile == "":
		return access.FleetKey{}, nil
	case f.url == "":
		return access.FleetKey{}, errors.New("--fleet-key-file needs --fleet URL")
	}
	return access.ReadFleetKey(f.keyFile)
}

// advertiseHost is the host name of --fleet-advertise ("" without one),
// which serve accepts in Host: it is how other machines name this piweb.
func (f *fleetFlags) advertiseHost() string {
	u, err := url.Parse(f.advertise)
	if f.advertise == "" || err != nil {
		return ""
	}
	return u.Hostname()
}

// piwebVersion names this piweb in the fleet: its module version when
// built from one, and the fleet writer it is.
func piwebVersion() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("piweb %s (fleet writer %d)", v, fleet.Writer)
}

// startFleet pushes cat's sessions until the returned stop is called,
// and returns the fleet for the API: its reader and this machine's push
// status. A database that is down or refuses only shows in the log and
// the status: the local page never waits for it.
func startFleet(e *env, f fleetFlags, cat *catalog.Catalog, pi agent.PiStatus) (*fleet.Service, func()) {
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	p := fleet.New(fleet.Options{URL: f.url, Machine: f.machine, Share: f.share, Advertise: f.advertise,
		Version: piwebVersion(), PiVersion: pi.Version, Source: cat, Log: log})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	fmt.Fprintf(e.stdout, "Fleet: pushing this machine's sessions as %q to %s\n", f.machine, fleet.Redact(f.url))
	fl := fleet.NewService(f.url, f.machine, p)
	return fl, func() {
		cancel()
		<-done
		fl.Close()
	}
}

func runFleet(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "migrate" {
		return fleetMigrate(ctx, e, args[1:])
	}
	if len(args) == 0 || args[0] != "status" {
		return fmt.Errorf("usage: piweb %s", usages["fleet"])
	}
	var f fleetFlags
	var agentDir string
	var asJSON bool
	fs := newFlags("fleet status", e)
	addFleetFlags(fs, &f)
	fs.StringVar(&agentDir, "agent-dir", "", "pi's agent `dir` (default $PI_CODING_AGENT_DIR or ~/.pi/agent)")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	if _, err := parseArgs(fs, args[1:], 0, 0, usages["fleet"]); err != nil {
		return err
	}
	if f.url == "" {
		f.url = e.getenv("PIWEB_FLEET")
	}
	if f.url == "" {
		return errors.New("--fleet URL is needed (or PIWEB_FLEET)")
	}
	if err := f.check(); err != nil {
		return err
	}
	return fleetStatus(ctx, e, f, agentDir, asJSON)
}

func fleetStatus(ctx context.Context, e *env, f fleetFlags, agentDir string, asJSON bool) error {
	if agentDir == "" {
		agentDir = pisession.AgentDir(e.getenv)
	}
	cat, err := catalog.Open(ctx, catalog.Options{AgentDir: agentDir, Getenv: e.getenv, SyncFor: time.Minute})
	if err != nil {
		return err
	}
	local, _, err := cat.List(ctx, catalog.ListQuery{})
	cat.Close()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	now := time.Now()
	r, err := fleet.Check(cctx, f.url, f.machine, local, now)
	if err != nil {
		fmt.Fprintf(e.stdout, "fleet database: %s\nmachine %s: %d local sessions, none known to be pushed\nwhy: %s\n",
			fleet.Redact(f.url), f.machine, len(local), fleet.Explain(err))
		return exitError(1)
	}
	if asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return writeJSONLine(e.stdout, b)
	}
	fmt.Fprint(e.stdout, r.Text(now))
	if r.Behind() > 0 || r.Paused != "" {
		return exitError(1)
	}
	return nil
}
