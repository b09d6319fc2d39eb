package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"piweb/internal/agent"
	"piweb/internal/demo"
	"piweb/internal/index"
	"piweb/internal/server"
	"piweb/internal/session"
	"piweb/internal/web"
)

// The serve command: `piweb` with no arguments runs it.

func init() {
	commands["serve"] = command{"serve [--addr HOST:PORT] [--agent-dir DIR] [--pi PATH] [--token T] [--open] [--demo] [-dev]   the web app (default)", runServe}
}

// DefaultAddr is where piweb listens unless told otherwise: loopback only.
const DefaultAddr = "127.0.0.1:30141"

type serveFlags struct {
	addr, agentDir, pi, token, webDir string
	open, demo, dev                   bool
}

func runServe(ctx context.Context, e *env, args []string) error {
	var f serveFlags
	fs := newFlags("serve", e)
	fs.StringVar(&f.addr, "addr", DefaultAddr, "listen `address`; a non-loopback one requires a token")
	fs.StringVar(&f.agentDir, "agent-dir", "", "pi's agent `dir` (default $PI_CODING_AGENT_DIR or ~/.pi/agent)")
	fs.StringVar(&f.pi, "pi", "", "`path` of the pi executable (default: pi on PATH)")
	fs.StringVar(&f.token, "token", "", "require this `token` (generated when listening beyond loopback)")
	fs.BoolVar(&f.open, "open", false, "open the app in the browser")
	fs.BoolVar(&f.demo, "demo", false, "run on a throwaway agent dir with sample sessions and a built-in demo model")
	fs.BoolVar(&f.dev, "dev", false, "serve the web app from internal/web/static on disk")
	fs.StringVar(&f.webDir, "web-dir", "", "with -dev, the static `dir` to serve")
	if pos, err := parseInterleaved(fs, args); err != nil {
		return err
	} else if err := wantArgs(pos, 0, 0, commands["serve"].usage); err != nil {
		return err
	}
	return serve(ctx, e, f)
}

func serve(ctx context.Context, e *env, f serveFlags) error {
	logger := log.New(e.stderr, "piweb: ", log.LstdFlags)
	agentDir := f.agentDir
	if agentDir == "" {
		agentDir = session.AgentDir(e.getenv)
	}
	if !f.demo && f.agentDir == "" && len(session.SessionFiles(agentDir)) == 0 {
		// A new user sees a full app instead of an empty one.
		fmt.Fprintf(e.stdout, "No pi sessions in %s yet: showing the built-in demo. Chat with pi in a terminal and restart piweb to see yours.\n", agentDir)
		f.demo = true
	}
	if f.demo {
		d, err := demo.Setup()
		if err != nil {
			return err
		}
		defer d.Close()
		agentDir = d.AgentDir
		fmt.Fprintf(e.stdout, "Demo: sample sessions in %s, demo model at %s\n", d.Root, d.LLM.URL())
	}
	if !server.IsLoopback(f.addr) && f.token == "" {
		f.token = server.NewToken()
	}
	indexPath := ""
	if f.demo {
		indexPath = filepath.Join(filepath.Dir(agentDir), "index.db")
	}
	cat, closeCat := openCatalog(ctx, logger, agentDir, indexPath)
	defer closeCat()
	ag := newAgent(ctx, e, f, agentDir)
	srv := server.New(server.Options{AgentDir: agentDir, Addr: f.addr, Token: f.token, Agent: ag,
		Catalog: cat, Web: web.Handler(f.dev, f.webDir), Log: logger, Demo: f.demo})
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		srv.Close()
		return fmt.Errorf("listen: %w", err)
	}
	url := appURL(ln.Addr(), f.addr, f.token)
	fmt.Fprintf(e.stdout, "piweb serving %s on %s\n", agentDir, url)
	if f.token != "" {
		fmt.Fprintln(e.stdout, "Open the link above once in each browser: it signs that browser in.")
	}
	if f.open {
		openBrowser(url)
	}
	err = srv.Serve(ctx, ln)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// openCatalog opens the SQLite index and keeps it current; when the index
// cannot be opened piweb still serves from a plain scan of the agent dir.
func openCatalog(ctx context.Context, logger *log.Logger, agentDir, path string) (server.Catalog, func()) {
	ix, err := index.Open(ctx, index.Options{AgentDir: agentDir, Path: path, Getenv: nil, Logf: logger.Printf})
	if err == nil {
		// List what can be listed in a moment before serving, so the first
		// page is not empty; the watcher indexes the rest (and the text).
		sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		ix.Sync(sctx, false)
		cancel()
		var cat *server.IndexCatalog
		if cat, err = server.NewIndexCatalog(ctx, ix); err == nil {
			wctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				if err := ix.Watch(wctx); err != nil && wctx.Err() == nil {
					logger.Printf("index watcher: %v", err)
				}
				close(done)
			}()
			return cat, func() { cancel(); <-done; cat.Close(); ix.Close() }
		}
		ix.Close()
	}
	logger.Printf("index unavailable, scanning files instead: %v", err)
	sc := server.NewScanCatalog(agentDir, time.Second)
	return sc, func() { sc.Close() }
}

// newAgent finds pi; without it piweb still browses and says how to
// install pi.
func newAgent(ctx context.Context, e *env, f serveFlags, agentDir string) server.Agent {
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pi, err := agent.Find(fctx, f.pi)
	if err != nil {
		msg := err.Error()
		fmt.Fprintf(e.stderr, "piweb: %v\n", err)
		if f.demo {
			fmt.Fprintln(e.stderr, demo.NoPiHelp)
		}
		return server.NoAgent(server.PiStatus{Error: &msg, Install: server.InstallHint})
	}
	a, err := server.NewPiAgent(agent.Config{Base: agent.Options{Pi: pi, AgentDir: agentDir},
		BridgeDir: agent.DefaultBridgeDir(), Spare: true})
	if err != nil {
		msg := err.Error()
		fmt.Fprintf(e.stderr, "piweb: %v\n", err)
		return server.NoAgent(server.PiStatus{Error: &msg, Install: server.InstallHint})
	}
	return a
}

// appURL is the address to print: the token link when one is required.
func appURL(a net.Addr, listen, token string) string {
	host, port, _ := net.SplitHostPort(a.String())
	if lh, _, err := net.SplitHostPort(listen); err == nil && lh != "" {
		if ip := net.ParseIP(lh); ip == nil || !ip.IsUnspecified() {
			host = lh
		}
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	u := "http://" + net.JoinHostPort(host, port) + "/"
	if token != "" {
		u += "auth?token=" + token
	}
	return u
}

func openBrowser(url string) {
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
