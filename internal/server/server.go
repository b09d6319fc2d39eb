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
	"piweb/internal/apitype"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/fleet"
	"piweb/internal/gitx"
	"piweb/internal/live"
	"piweb/internal/ops"
	"piweb/internal/own"
	"piweb/internal/pilogin"
	"piweb/internal/push"
	"piweb/internal/session"
	"piweb/internal/sse"
	"piweb/internal/terminal"
)

// Options configures a Server.
type Options struct {
	// AgentDir is pi's agent directory (sessions, models.json, trash).
	AgentDir string
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
	// Catalog is the session listing; nil opens one over an index in a
	// temporary dir, which Close closes.
	Catalog *catalog.Catalog
	// Agent runs pi; nil browses only.
	Agent agent.Adapter
	// Web serves the app at "/"; nil serves a placeholder page.
	Web http.Handler
	// Store performs the session mutations; nil is a session.Store over
	// AgentDir, whose interrupted deletes and restores, crash debris and
	// old backups New settles (session.Store.Tidy).
	Store *session.Store
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
	// Terminals runs the Terminal panel's shells; nil turns terminals
	// off (serve's --no-terminal). Close closes it.
	Terminals *terminal.Manager
	// Git runs git for the Changes panel; nil runs git from PATH.
	Git *gitx.Git
	// GitPoll is how often a followed session's git state is looked at
	// (topic g/<id>); 0 means 2 s.
	GitPoll time.Duration
	// FilesPoll is how often a followed folder or file of a session's cwd
	// is looked at (files topics); 0 means 1 s.
	FilesPoll time.Duration
	// Heartbeat is how often an idle event stream gets a comment line, so
	// proxies and browsers keep it open and dead clients are noticed; 0
	// means 15 s.
	Heartbeat time.Duration
	// WriteTimeout bounds each write of an event stream: a client that
	// stops reading is dropped instead of pinning a goroutine; 0 means 10 s.
	WriteTimeout time.Duration
	// EventQueue is how many events a stream may have waiting before it
	// is cut off (it resumes with Last-Event-ID); 0 means 1,024.
	EventQueue int
	// ModelTestTimeout bounds POST /api/config/test (0: 30 s).
	ModelTestTimeout time.Duration
	// PackageTimeout bounds POST /api/config/packages, a pi install or
	// remove (0: 5 minutes).
	PackageTimeout time.Duration
	// SignInTimeout ends an account sign-in (pi auth login) still running
	// after it; 0 means pilogin.DefaultTimeout (10 minutes).
	SignInTimeout time.Duration
	// ModelTitles (serve's --model-titles) forces model-made titles on
	// whatever the Settings switch (Prefs) says: a new session's
	// heuristic name is replaced by a title pi's default model writes.
	ModelTitles bool
	// Prefs keeps piweb's own preferences (the Settings page's model
	// titles switch, off by default); nil keeps them in memory.
	Prefs *own.PrefsStore
	// Push sends Web Push notifications of attention events; nil: none
	// (the push routes answer 415 unsupported).
	Push *push.Service
	// Marks keeps the user's read marks and mutes; nil keeps them in
	// memory from the server's start.
	Marks *own.AttentionStore
	// Fleet answers GET /api/sessions?fleet=1 and /api/search?fleet=1
	// for every machine of the fleet (serve --fleet); nil: the fleet is off.
	Fleet Fleet
}

// Fleet is the fleet database's reader (fleet.Reader): answers shaped as
// the local ones, each session with its machine.
type Fleet interface {
	Sessions(ctx context.Context, q catalog.ListQuery, machine string) (fleet.List, error)
	Search(ctx context.Context, q catalog.SearchQuery) (fleet.Search, error)
	// Usage groups the fleet's usage by day (in tz), model, project or
	// machine, since a time (zero: all).
	Usage(ctx context.Context, by, tz string, since time.Time) ([]catalog.UsageRow, error)
	// Session reads another machine's session (its listing and its file
	// as pushed) by its API id there; fleet.ErrNoSession when there is none.
	Session(ctx context.Context, machine, id string) (catalog.Meta, []byte, error)
	// Machine is this machine's name in the fleet.
	Machine() string
	// Status is this machine's push, for GET /api/status.
	Status() apitype.FleetStatus
	// Listen calls changed with a machine's name after each of its pushes
	// (LISTEN/NOTIFY), "" after a reconnection, until ctx ends.
	Listen(ctx context.Context, retry time.Duration, changed func(machine string))
}

// fleetChanged is the index topic's event of a machine's push: fleet
// pages reload what they show of that machine ("" for every machine).
type fleetChanged struct {
	Type    string `json:"type"` // fleet_changed
	Machine string `json:"machine"`
}

// listenFleet relays the fleet's pushes to the pages until Close.
func (s *Server) listenFleet() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancels = append(s.cancels, cancel)
	go s.opts.Fleet.Listen(ctx, time.Second, func(machine string) {
		s.live.PublishJSON(live.IndexTopic, fleetChanged{Type: "fleet_changed", Machine: machine})
	})
}

// titler is live's Titler when pi can write titles: it asks pi's default
// model only while model titles are on (the Settings switch, or serve's
// --model-titles), checked at each new session, and answers "" otherwise.
func (s *Server) titler() func(context.Context, string) string {
	t, can := s.agent.(interface {
		Title(ctx context.Context, first string, timeout time.Duration) string
	})
	if !can {
		return nil
	}
	return func(ctx context.Context, first string) string {
		if !s.modelTitles() {
			return ""
		}
		return t.Title(ctx, first, s.opts.testTimeout())
	}
}

// modelTitles says whether new sessions get a model-made title.
func (s *Server) modelTitles() bool { return s.opts.ModelTitles || s.prefs.Get().ModelTitles }

func (o Options) testTimeout() time.Duration {
	if o.ModelTestTimeout > 0 {
		return o.ModelTestTimeout
	}
	return testTimeout
}

// Server is the piweb HTTP server. Create it with New, serve its Handler,
// and Close it to stop the event relays and every worker.
type Server struct {
	opts     Options
	agentDir string
	cat      *catalog.Catalog
	agent    agent.Adapter
	store    *session.Store
	web      http.Handler
	log      *slog.Logger
	hosts    access.Hosts
	auth     *auth
	events   *broker.Broker[broker.Event]
	sse      *sse.Streams
	cache    *session.Cache
	lists    *catalog.ListCache
	live     *live.Relay
	ops      *ops.Ops
	handler  http.Handler
	git      *gitx.Git
	logins   *pilogin.Manager // nil without pi
	repos    *gitx.RepoCache

	marks   *own.AttentionStore
	prefs   *own.PrefsStore
	cancels []func()
	closers []func() error // after the goroutines end
}

// New builds a Server and starts its live topics (internal/live).
func New(opts Options) *Server {
	s := &Server{opts: opts, agentDir: opts.AgentDir, cat: opts.Catalog, agent: opts.Agent,
		store: opts.Store, web: opts.Web, log: opts.Log,
		hosts: access.HostsFor(opts.Addr, opts.Hosts), auth: newAuth(opts.Token, opts.Login, opts.SignInKeys, opts.Addr),
		cache: session.NewCache(8, 512<<20), lists: &catalog.ListCache{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.cat == nil {
		s.cat = s.ownCatalog()
	}
	if s.agent == nil {
		msg := agent.ErrPiMissing.Error()
		s.agent = agent.NoService{Status: agent.PiStatus{Error: &msg, Install: agent.InstallHint}}
	}
	if s.store == nil {
		s.store = &session.Store{AgentDir: opts.AgentDir, Log: s.log}
	}
	s.store.Tidy()
	s.git = opts.Git
	if s.git == nil {
		s.git = gitx.New(gitx.Options{})
	}
	s.repos = &gitx.RepoCache{Git: s.git, TTL: 30 * time.Second}
	s.marks = opts.Marks
	if s.marks == nil {
		s.marks, _ = own.OpenAttention("", time.Now()) // in memory: cannot fail
	}
	s.prefs = opts.Prefs
	if s.prefs == nil {
		s.prefs, _ = own.OpenPrefs("") // in memory: cannot fail
	}
	s.events = live.NewEvents(s.agent.Events(), opts.EventQueue)
	s.sse = sse.New(s.events, sse.Options{Heartbeat: opts.Heartbeat, WriteTimeout: opts.WriteTimeout})
	s.live = live.New(live.Options{Catalog: s.cat, Agent: s.agent, Events: s.events, Cache: s.cache, Store: s.store,
		Git: s.git, Push: opts.Push, Marks: s.marks, GitPoll: opts.GitPoll, FilesPoll: opts.FilesPoll, Logf: s.logf,
		Titler: s.titler()})
	s.ops = &ops.Ops{Agent: s.agent, Store: s.store, Cat: s.cat, Cache: s.cache, Live: s.live}
	s.handler = s.logRequests(s.guard(s.routes()))
	if opts.Terminals != nil {
		s.cancels = append(s.cancels, opts.Terminals.Close)
	}
	s.logins = s.newLogins()
	if opts.Fleet != nil {
		s.listenFleet()
	}
	return s
}

// ownCatalog opens the catalog of a server built without one; Close
// closes it.
func (s *Server) ownCatalog() *catalog.Catalog {
	cat, err := catalog.Open(context.Background(), catalog.Options{AgentDir: s.agentDir, Temporary: true, Logf: s.logf})
	if err != nil {
		s.logf("no session index: %v", err)
		return catalog.Static()
	}
	s.closers = append(s.closers, cat.Close)
	return cat
}

// Handler is the whole server as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// ServeHTTP makes the Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Serve serves on ln until ctx ends, then shuts down gracefully: SSE
// streams end, in-flight requests get a few seconds, workers are stopped.
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
	s.sse.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}

// Close ends the SSE streams and event relays and stops every worker.
func (s *Server) Close() error {
	s.sse.Close()
	for _, c := range s.cancels {
		c()
	}
	s.cancels = nil
	s.live.Close()
	s.lists.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.agent.Close(ctx)
	for _, c := range s.closers {
		c()
	}
	s.closers = nil
	return err
}
