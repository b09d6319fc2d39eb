package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlags returns a flag set for a subcommand that reports errors instead
// of exiting, so run stays testable.
func newFlags(name string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet("piweb "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments ("piweb context FILE --leaf ID") and returns the
// positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// wantArgs checks the number of positional arguments.
func wantArgs(pos []string, min, max int, usage string) error {
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		return fmt.Errorf("usage: piweb %s", usage)
	}
	return nil
}

// parseArgs parses args with fs (parseInterleaved) and checks that min to
// max positional arguments remain (wantArgs).
func parseArgs(fs *flag.FlagSet, args []string, min, max int, usage string) ([]string, error) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	return pos, wantArgs(pos, min, max, usage)
}

// writeJSONLine writes b and a newline.
func writeJSONLine(w io.Writer, b []byte) error {
	_, err := w.Write(append(b, '\n'))
	return err
}

// stringList is a repeatable string flag ("--host a --host b").
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
