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

// command is one piweb subcommand. It returns the process exit status; an
// error is printed on stderr and gives status 2 unless it is an exitError.
type command struct {
	usage string
	run   func(ctx context.Context, e *env, args []string) error
}

// exitError carries a specific exit status without another message, for
// commands such as check whose status is part of their answer.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// commands is filled by the init functions of the files beside this one, one
// file per subcommand.
var commands = map[string]command{}

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
	err := cmd.run(ctx, e, args)
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
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", commands[n].usage)
	}
}
