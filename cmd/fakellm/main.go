// Command fakellm runs piweb's fake OpenAI-compatible LLM server for manual
// use with a real pi:
//
//	fakellm -addr 127.0.0.1:18080 -agent-dir /tmp/agent
//	PI_CODING_AGENT_DIR=/tmp/agent PI_OFFLINE=1 pi
//
// With -agent-dir it also writes models.json and settings.json there. It
// answers with the Demo rule; see package piweb/internal/fakellm.
package main

import (
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"

	"piweb/internal/fakellm"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "listen address")
	agentDir := flag.String("agent-dir", "", "if set, write models.json and settings.json for pi here")
	quiet := flag.Bool("q", false, "do not log requests")
	flag.Parse()
	if err := run(*addr, *agentDir, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

func run(addr, agentDir string, quiet bool) error {
	opts := fakellm.Options{}
	if !quiet {
		opts.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv := fakellm.New(opts)
	url, err := srv.Start(addr)
	if err != nil {
		return err
	}
	defer srv.Close()
	if agentDir != "" {
		if err := fakellm.SetupAgentDir(agentDir, url); err != nil {
			return err
		}
	}
	log.Printf("fakellm: serving %s", url)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
	return nil
}
