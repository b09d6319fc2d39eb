package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// env bundles what a subcommand may use from the process, so that tests can
// call run with their own environment, input and output.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command runs one piweb subcommand. An error is printed on stderr and
// gives status 2 unless it is an exitError.
type command func(ctx context.Context, e *env, args []string) error

// exitError carries a specific exit status without another message, for
// commands such as check whose status is part of their answer.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// commands are piweb's subcommands, each in a file of its own beside this
// one.
var commands = map[string]command{
	"check":   runCheck,
	"context": runContext,
	"fleet":   runFleet,
	"fork":    runFork,
	"index":   runIndex,
	"label":   runLabel,
	"ls":      runLs,
	"mcp":     runMCP,
	"migrate": runMigrate,
	"rename":  runRename,
	"search":  runSearch,
	"serve":   runServe,
	"tree":    runTree,
}

// usages are the subcommands' usage lines, as help prints them. They are
// a table apart from commands because each command reads its own: in one
// table, the table would depend on itself (an initialization cycle).
var usages = map[string]string{
	"check":   "check [--repair] [--cwd DIR] FILE...  report (and repair) damaged session files",
	"context": "context FILE [--leaf ID]   pi's buildSessionContext as JSON",
	"fleet":   "fleet status --fleet URL [--machine NAME] [--agent-dir DIR] [--json]   what this machine pushed to the fleet database, what is behind and why; fleet migrate --fleet URL   create or upgrade the fleet's schema, as a role of piweb_fleet",
	"fork":    "fork FILE --entry ID [--at]  new session from a branch; prints its path",
	"index":   "index [--status] [--json] [--tools] [--merge]   update the session index (--merge: and merge its text index now), or report its state",
	"label":   "label FILE ENTRY [LABEL]   set or clear an entry's label",
	"ls":      "ls [--json] [--scan]       every session, newest first",
	"mcp":     "mcp [--tools]              an MCP server on stdin/stdout: search and read every session (pi's mcp.json starts it)",
	"migrate": "migrate FILE...            rewrite version 1 and 2 files as version 3, keeping backups",
	"rename":  "rename FILE NAME           set the session name (empty clears)",
	"search":  "search QUERY [--cwd DIR] [--model M] [--since D] [--until D] [--json] [--tools]   full-text search; QUERY may hold the page's filters (project: after: before: role: model: branch:)",
	"serve":   "serve [--addr HOST:PORT] [--host NAME]... [--agent-dir DIR] [--pi PATH] [--token T] [--proxy ADDR]... [--open] [--demo] [--no-terminal] [-dev] [--fleet URL [--machine NAME] [--fleet-share full|meta] [--fleet-advertise URL] [--fleet-key-file PATH]]   the web app (default)",
	"tree":    "tree FILE                  pi's getTree as JSON",
}

// run is the whole program: main only supplies the process environment.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" || (len(args) > 0 && isHelp(args[0]) && name == "serve") {
		printUsage(stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "piweb: unknown command %q\n", name)
		printUsage(stderr)
		return 2
	}
	err := cmd(ctx, e, args)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return int(ee)
	case errors.Is(err, flag.ErrHelp): // the flag package printed the command's usage
		return 0
	default:
		fmt.Fprintf(stderr, "piweb %s: %v\n", name, err)
		return 2
	}
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: piweb [command] [flags]")
	names := make([]string, 0, len(usages))
	for n := range usages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", usages[n])
	}
}
