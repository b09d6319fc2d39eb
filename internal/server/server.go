// Package server is piweb's HTTP face: the JSON API of docs/api.md, the
// SSE streams of live agents and of the index, and the embedded web app,
// behind one security layer. Handlers return errors; one adapter turns
// them into the uniform {"error":{"code","message"}} answers.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"piweb/internal/access"
	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/filefind"
	"piweb/internal/gitx"
	"piweb/internal/live"
	"piweb/internal/metrics"
	"piweb/internal/ops"
	"piweb/internal/opt"
	"piweb/internal/own"
	"piweb/internal/pilogin"
	"piweb/internal/sessionstore"
	"piweb/internal/sse"
)

// Options configures a Server.
type Options struct {
	// Addr is the listen address; it decides the allowed Host names.
	Addr string
	// Hosts are extra Host names to accept (serve's --host: a name in
	// DNS or /etc/hosts, a reverse proxy's).
	Hosts []string
	// Token, when set, is required on every request (as a bearer token,
	// or through the cookie its login link sets) and stays valid for the
	// server's life: the user chose it.
	Token string
	// Proxies are the addresses of reverse proxies in front of piweb
	// (serve's --proxy): only from them is X-Forwarded-For believed, to
	// throttle failed sign-ins per real client.
	Proxies []string
	// Login requires sign-in without a Token: LoginLink then makes
	// one-time links. serve sets it when listening beyond loopback.
	Login bool
	// SignInKeys sign and check sign-in cookies and links; nil makes new
	// ones for Token. serve passes the same keys to the server that
	// follows the demo (LeaveDemo), so that signed-in browsers stay so.
	SignInKeys *access.Keys
	// OnLogin is called with the client's address after a one-time
	// login link was used (serve prints a fresh link for the next
	// browser).
	OnLogin func(remote string)
	// Web serves the app at "/"; nil serves a placeholder page.
	Web http.Handler
	// Log receives one line per request and the server's errors; nil
	// discards them.
	Log *slog.Logger
	// Demo and Version are reported by GET /api/status.
	Demo    bool
	Version string
	// DemoRealDir is, in the demo, the user's own agent dir: status says
	// how many sessions it holds, so the page can offer to switch.
	DemoRealDir string
	// LeaveDemo, in the demo, ends it: serve stops this server, keeps the
	// sessions the user started in real folders and serves DemoRealDir on
	// the same address. POST /api/demo/leave calls it once its answer is
	// out; nil offers no way out of the demo.
	LeaveDemo func()
	// Timeouts of Serve's connections; zero values take the defaults of
	// timeouts.go.
	Timeouts Timeouts
	// ModelTestTimeout bounds POST /api/config/test (0: 30 s).
	ModelTestTimeout time.Duration
	// PackageTimeout bounds POST /api/config/packages, a pi install or
	// remove (0: 5 minutes).
	PackageTimeout time.Duration
	// Fleet answers GET /api/sessions?fleet=1 and /api/search?fleet=1
	// for every machine of the fleet (serve --fleet); nil: the fleet is off.
	Fleet Fleet
	// FleetKey is the fleet's key (serve --fleet-key-file): sent with the
	// requests this piweb forwards to another machine (Peers finds it),
	// and required of those another machine forwards here. Without it
	// neither happens.
	FleetKey access.FleetKey
	Peers    Peers
	// Executable is this piweb's binary, for the mcp.json entry Settings
	// offers (GET /api/config/resources, POST /api/config/mcp/piweb);
	// "" offers none.
	Executable string
	// Metrics, when set, counts every request by route and status and is
	// served at GET /metrics, with the runtime's profiles at
	// /debug/pprof/ (metrics.go); nil: neither route exists.
	Metrics *metrics.Registry
}

func (o Options) testTimeout() time.Duration {
	if o.ModelTestTimeout > 0 {
		return o.ModelTestTimeout
	}
	return testTimeout
}

// Server is the piweb HTTP server. Create it with New over a built
// *app.App, serve its Handler, and Close it before closing the App.
type Server struct {
	opts      Options
	app       *app.App
	agentDir  string
	cat       *catalog.Catalog
	agent     agent.Adapter
	store     *sessionstore.Store
	web       http.Handler
	log       *slog.Logger
	hosts     access.Hosts
	auth      *auth
	sse       *sse.Streams
	cache     *sessionstore.Cache
	lists     *catalog.ListCache
	live      *live.Relay
	ops       *ops.Ops
	handler   http.Handler
	git       *gitx.Git
	find      *filefind.Finder
	logins    *pilogin.Manager // nil without pi
	repos     *gitx.RepoCache
	marks     *own.AttentionStore
	prefs     *own.PrefsStore
	order     *own.OrderStore
	shares    *own.ShareStore
	requests  *requestMetrics // nil without Options.Metrics
	peers     *http.Client    // to the fleet's other machines (proxy.go)
	patient   *http.Client    // peers without the answer bound, for pi's commands
	peerCache peerCache       // the fleet database's word on each machine, for a few seconds
}

// New is the server of a's parts (internal/app builds and starts them):
// it builds none and starts no background work.
func New(opts Options, a *app.App) *Server {
	s := &Server{opts: opts, app: a, agentDir: a.AgentDir, cat: a.Catalog, agent: a.Agent, store: a.Store,
		web: opts.Web, log: opts.Log, hosts: access.HostsFor(opts.Addr, opts.Hosts),
		auth:  newAuth(opts.Token, opts.Login, opts.SignInKeys, opts.Addr),
		cache: a.Cache, lists: &catalog.ListCache{}, sse: a.Streams, live: a.Live, ops: a.Ops, git: a.Git,
		find: a.Finder, logins: a.Logins, repos: a.Repos, marks: a.Marks, prefs: a.Prefs, order: a.Order,
		shares: a.Shares}
	opt.Log(&s.log)
	s.requests = newRequestMetrics(opts.Metrics)
	t := newPeerTransport(opts.Timeouts.PeerAnswer)
	s.peers, s.patient = peerHTTPClient(t), peerHTTPClient(patientTransport(t))
	s.handler = s.logRequests(s.guard(s.remote(s.routes())))
	return s
}

// Handler is the whole server as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// ServeHTTP makes the Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Serve serves on ln until ctx ends, then shuts down gracefully: SSE
// streams end, in-flight requests get a few seconds. The caller closes
// the App afterwards.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.httpServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.sse.Close() // a stream would hold Shutdown until its timeout
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	s.Close()
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}

// Close ends the event streams and waits for the listings being encoded
// (they read the catalog): call it before closing the App.
func (s *Server) Close() error {
	s.sse.Close()
	s.peers.CloseIdleConnections()
	s.patient.CloseIdleConnections()
	s.lists.Wait()
	return nil
}
