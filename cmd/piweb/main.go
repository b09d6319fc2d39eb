// Command piweb is a web app over pi coding agent sessions.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"piweb/internal/memlimit"
)

func main() { os.Exit(runProcess()) }

// runProcess is piweb run by the process: its arguments, environment and
// standard files, stopped by SIGINT or SIGTERM.
func runProcess() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	memlimit.Set(os.Getenv)
	return run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
}
