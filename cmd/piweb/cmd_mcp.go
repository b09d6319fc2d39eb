package main

import (
	"context"
	"errors"
	"log/slog"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"piweb/internal/index"
	"piweb/internal/mcp"
)

// runMCP serves MCP on stdin and stdout from the index, which it brings
// up to date at the start (in the background: initialize is answered at
// once) and before each tool call.
func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlags("mcp", e)
	tools := fs.Bool("tools", false, "use the index that also holds tool calls and results")
	if _, err := parseArgs(fs, args, 0, 0, usages["mcp"]); err != nil {
		return err
	}
	// A client that closes its end mid-answer must make the write fail,
	// not kill the process with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	o, err := indexOptions(e, *tools)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o.Log = log
	ix, err := index.Open(ctx, o)
	if err != nil {
		return err
	}
	defer ix.Close()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	fresh := func(ctx context.Context) error { _, err := ix.Sync(ctx, true); return err }
	wg.Go(func() { _ = fresh(ctx) })
	// A tool call waits for the index at most 20 s: pi gives it 60.
	srv := mcp.New(mcp.Options{Index: ix, Fresh: fresh, FreshWait: 20 * time.Second, Loc: time.Local,
		Version: piwebVersion(), Log: log})
	if err := srv.Serve(ctx, e.stdin, e.stdout); err != nil && !errors.Is(err, syscall.EPIPE) {
		return err
	}
	return nil
}
