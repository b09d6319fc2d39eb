// Package app is piweb's composition root: from what serve (or a test)
// chose, it builds every part the HTTP server serves (the session store,
// the parse cache, git, the live topics and their pollers, the
// mutations, the event streams, account sign-in) and starts their
// background work; Close stops it in order. internal/server builds
// nothing: it serves an *App.
package app

import (
	"context"
	"log/slog"
	"os/exec"
	"time"

	"piweb/internal/agent"
	"piweb/internal/attention"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/cwdfs"
	"piweb/internal/filefind"
	"piweb/internal/gitx"
	"piweb/internal/live"
	"piweb/internal/memlimit"
	"piweb/internal/naming"
	"piweb/internal/ops"
	"piweb/internal/opt"
	"piweb/internal/own"
	"piweb/internal/pilogin"
	"piweb/internal/push"
	"piweb/internal/sessionstore"
	"piweb/internal/sse"
	"piweb/internal/terminal"
)

// Config is what the caller chose; zero values take the defaults each
// field names.
type Config struct {
	// AgentDir is pi's agent directory (sessions, models.json, trash).
	AgentDir string
	// Catalog is the session listing; nil opens one over an index in a
	// temporary dir, which Close closes.
	Catalog *catalog.Catalog
	// Agent runs pi; nil browses only (agent.NoService). Close closes it.
	Agent agent.Adapter
	// Store performs the session mutations; nil is a session.Store over
	// AgentDir. New settles its interrupted deletes and restores, crash
	// debris and old backups (session.Store.Tidy).
	Store *sessionstore.Store
	// Terminals runs the Terminal panel's shells; nil turns terminals
	// off (serve's --no-terminal). Close closes it.
	Terminals *terminal.Manager
	// Git runs git for the Changes panel; nil runs git from PATH.
	Git *gitx.Git
	// Push sends Web Push notifications of attention events; nil: none.
	Push *push.Service
	// Marks keeps the user's read marks and mutes; nil keeps them in
	// memory from the start.
	Marks *own.AttentionStore
	// Prefs keeps piweb's own preferences; nil keeps them in memory.
	Prefs *own.PrefsStore
	// Order keeps the user's pins and archive; nil keeps them in memory.
	Order *own.OrderStore
	// Shares keeps the read-only share links; nil keeps them in memory.
	Shares *own.ShareStore
	// ModelTitles (serve's --model-titles) forces model-made titles on
	// whatever the Settings switch (Prefs) says.
	ModelTitles bool
	// TitleTimeout bounds the model's writing of one title (0: 30 s).
	TitleTimeout time.Duration
	// GitPoll is how often a followed session's git state is looked at
	// (topic g/<id>); 0 means 2 s.
	GitPoll time.Duration
	// FilesPoll is how often a followed folder or file of a session's cwd
	// is looked at; 0 means 1 s.
	FilesPoll time.Duration
	// Heartbeat is how often an idle event stream gets a comment line; 0
	// means 15 s.
	Heartbeat time.Duration
	// WriteTimeout bounds each write of an event stream; 0 means 10 s.
	WriteTimeout time.Duration
	// EventQueue is how many events a stream may have waiting before it
	// is cut off, when the App makes the broker (an Agent without one);
	// 0 means 1,024.
	EventQueue int
	// SignInTimeout ends an account sign-in still running after it; 0
	// means pilogin.DefaultTimeout (10 minutes).
	SignInTimeout time.Duration
	// Fleet, with serve --fleet, tells of other machines' pushes; the App
	// relays each to the pages (FleetChanged on the index topic) until
	// Close. nil: no fleet.
	Fleet FleetNotices
	// Log receives the parts' errors; nil discards them.
	Log *slog.Logger
}

// FleetNotices is the fleet's LISTEN/NOTIFY: Listen calls changed with a
// machine's name after each of its pushes, "" after a reconnection, until
// ctx ends.
type FleetNotices interface {
	Listen(ctx context.Context, retry time.Duration, changed func(machine string))
}

// FleetChanged is the index topic's event of a machine's push: fleet
// pages reload what they show of that machine ("" for every machine).
type FleetChanged struct {
	Type    string `json:"type"` // fleet_changed
	Machine string `json:"machine"`
}

// App is every part the server serves, built and running.
type App struct {
	AgentDir    string
	Catalog     *catalog.Catalog
	Agent       agent.Adapter
	Store       *sessionstore.Store
	Cache       *sessionstore.Cache
	Git         *gitx.Git
	Repos       *gitx.RepoCache
	Finder      *filefind.Finder  // the composer's "@" completion
	Terminals   *terminal.Manager // nil: terminals are off
	Push        *push.Service     // nil: no Web Push
	Marks       *own.AttentionStore
	Prefs       *own.PrefsStore
	Order       *own.OrderStore
	Shares      *own.ShareStore
	ModelTitles bool // forced on by serve's --model-titles
	Events      *broker.Broker[broker.Event]
	Streams     *sse.Streams
	Live        *live.Relay
	FilePollers *cwdfs.Pollers // the folders and files pages follow
	GitPollers  *gitx.Pollers  // the git state pages follow
	Attention   *attention.Notifier
	Names       *naming.Namer
	Ops         *ops.Ops
	Logins      *pilogin.Manager // nil without a pi that can run `pi auth login`
	Log         *slog.Logger

	stops   []func()       // background work of the App's own, ended first
	closers []func() error // in order, last
}

// New builds the parts and starts their background work.
func New(cfg Config) *App {
	a := &App{AgentDir: cfg.AgentDir, Catalog: cfg.Catalog, Agent: cfg.Agent, Store: cfg.Store,
		Cache: sessionstore.NewCache(8, 512<<20), Git: cfg.Git, Terminals: cfg.Terminals, Push: cfg.Push,
		Marks: cfg.Marks, Prefs: cfg.Prefs, Order: cfg.Order, Shares: cfg.Shares, ModelTitles: cfg.ModelTitles, Log: cfg.Log}
	a.defaults()
	// The soft memory limit (set by piweb's process) rises by what the
	// parse cache holds within its budget.
	a.Cache.OnHeld(memlimit.Hold)
	a.Store.Tidy()
	a.Repos = &gitx.RepoCache{Git: a.Git, TTL: 30 * time.Second}
	a.Finder = filefind.New(filefind.Options{Git: a.Git})
	a.Events = a.Agent.Events() // the agent's broker, so each event is numbered and kept once
	if a.Events == nil {
		a.Events = agent.SharedBroker(cfg.EventQueue, nil)
	}
	a.Streams = sse.New(a.Events, sse.Options{Heartbeat: cfg.Heartbeat, WriteTimeout: cfg.WriteTimeout})
	a.FilePollers = cwdfs.NewPollers(a.Events, cfg.FilesPoll)
	a.GitPollers = gitx.NewPollers(a.Git, a.Events, cfg.GitPoll)
	a.Names = naming.New(naming.Options{Catalog: a.Catalog, Agent: a.Agent, Store: a.Store,
		Titler: a.titler(cfg.TitleTimeout), Log: a.Log})
	a.Attention = attention.New(attention.Options{Catalog: a.Catalog, Events: a.Events, Push: a.Push,
		Marks: a.Marks, Names: a.Names})
	a.Live = live.New(live.Options{Catalog: a.Catalog, Agent: a.Agent, Events: a.Events, Cache: a.Cache,
		Files: a.FilePollers, Git: a.GitPollers, Attention: a.Attention.Note, Log: a.Log})
	a.Ops = &ops.Ops{Agent: a.Agent, Store: a.Store, Cat: a.Catalog, Cache: a.Cache, Live: a.Live, Names: a.Names}
	a.Logins = a.newLogins(cfg.SignInTimeout)
	if cfg.Fleet != nil {
		a.relayFleet(cfg.Fleet)
	}
	return a
}

// relayFleet publishes the fleet's pushes on the index topic until Close.
func (a *App) relayFleet(f FleetNotices) {
	ctx, cancel := context.WithCancel(context.Background())
	go f.Listen(ctx, time.Second, func(machine string) {
		a.Live.PublishJSON(live.IndexTopic, FleetChanged{Type: "fleet_changed", Machine: machine})
	})
	a.stops = append(a.stops, cancel)
}

// defaults fills what the caller left nil.
func (a *App) defaults() {
	opt.Log(&a.Log)
	if a.Catalog == nil {
		a.Catalog = a.ownCatalog()
	}
	if a.Agent == nil {
		msg := agent.ErrPiMissing.Error()
		a.Agent = agent.NoService{Status: agent.PiStatus{Error: &msg, Install: agent.InstallHint}}
	}
	if a.Store == nil {
		a.Store = &sessionstore.Store{AgentDir: a.AgentDir, Log: a.Log}
	}
	if a.Git == nil {
		a.Git = gitx.New(gitx.Options{})
	}
	if a.Marks == nil {
		a.Marks, _ = own.OpenAttention("", time.Now()) // in memory: cannot fail
	}
	if a.Prefs == nil {
		a.Prefs, _ = own.OpenPrefs("") // in memory: cannot fail
	}
	if a.Order == nil {
		a.Order, _ = own.OpenOrder("") // in memory: cannot fail
	}
	if a.Shares == nil {
		a.Shares, _ = own.OpenShares("") // in memory: cannot fail
	}
}

// ownCatalog opens the catalog of an App configured without one; Close
// closes it.
func (a *App) ownCatalog() *catalog.Catalog {
	cat, err := catalog.Open(context.Background(), catalog.Options{AgentDir: a.AgentDir, Temporary: true, Log: a.Log})
	if err != nil {
		a.Log.Error("no session index", "err", err)
		return catalog.Static()
	}
	a.closers = append(a.closers, cat.Close)
	return cat
}

// ModelTitlesOn says whether new sessions get a model-made title: forced
// by serve, or the Settings switch.
func (a *App) ModelTitlesOn() bool { return a.ModelTitles || a.Prefs.Get().ModelTitles }

// titler is naming's Titler when pi can write titles: it asks pi's default
// model only while model titles are on, checked at each new session.
func (a *App) titler(timeout time.Duration) func(context.Context, string) string {
	t, can := a.Agent.(interface {
		Title(ctx context.Context, first string, timeout time.Duration) string
	})
	if !can {
		return nil
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return func(ctx context.Context, first string) string {
		if !a.ModelTitlesOn() {
			return ""
		}
		return t.Title(ctx, first, timeout)
	}
}

// ForgetModels makes the next model listing ask pi again (after a
// sign-in, a models.json write, a package install).
func (a *App) ForgetModels() {
	if f, canForget := a.Agent.(interface{ ForgetModels() }); canForget {
		f.ForgetModels()
	}
}

// newLogins is the sign-in runner over the agent's pi, nil without one.
func (a *App) newLogins(timeout time.Duration) *pilogin.Manager {
	pc, canRun := a.Agent.(interface {
		PiCommand(ctx context.Context, args ...string) (*exec.Cmd, error)
	})
	if !canRun {
		return nil
	}
	return pilogin.New(pilogin.Options{Command: pc.PiCommand, Timeout: timeout,
		OnSignedIn: func(string) { a.ForgetModels() }})
}

// Close ends the event streams, the sign-ins, the terminals and the live
// topics, stops every worker and closes what New opened.
func (a *App) Close() error {
	for _, stop := range a.stops {
		stop()
	}
	a.stops = nil
	a.Streams.Close()
	if a.Logins != nil {
		a.Logins.Close()
	}
	if a.Terminals != nil {
		a.Terminals.Close()
	}
	a.Live.Close()
	a.FilePollers.Close()
	a.GitPollers.Close()
	a.Finder.Close()
	a.Attention.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := a.Agent.Close(ctx)
	for _, c := range a.closers {
		c()
	}
	a.closers = nil
	return err
}
