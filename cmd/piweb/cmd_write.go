package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// The commands that write session files. Each goes through internal/sessionstore,
// which appends with one O_APPEND write per line and never rewrites a file
// in place.

// openForWriting parses a file that piweb is about to write to.
func openForWriting(path string) (*pisession.Session, error) {
	s, err := pisession.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if s.Header == nil {
		return nil, fmt.Errorf("%s: %w; run piweb check --repair first", path, pisession.ErrNoHeader)
	}
	return s, nil
}

func runFork(ctx context.Context, e *env, args []string) error {
	fs := newFlags("fork", e)
	entry := fs.String("entry", "", "entry `id` to fork at")
	at := fs.Bool("at", false, "keep the entry itself (branch extraction, pi's /clone) instead of forking before a user message")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 1, 1, usages["fork"]); err != nil || *entry == "" {
		return errors.Join(err, errors.New("--entry is required"))
	}
	src, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	s, err := openForWriting(src)
	if err != nil {
		return err
	}
	var content []byte
	if *at {
		content, err = s.Extract(*entry, src)
	} else {
		content, err = s.ForkBefore(*entry, src)
	}
	if err != nil {
		return err
	}
	path, err := sessionstore.NewFile(filepath.Dir(src), content)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, path)
	return err
}

// appendArgs reads the arguments of a command that appends to the
// session FILE, its first (least to most in all), and parses the file.
func appendArgs(e *env, name string, args []string, least, most int) ([]string, *pisession.Session, error) {
	pos, err := parseArgs(newFlags(name, e), args, least, most, usages[name])
	if err != nil {
		return nil, nil, err
	}
	s, err := openForWriting(pos[0])
	return pos, s, err
}

func runRename(ctx context.Context, e *env, args []string) error {
	pos, s, err := appendArgs(e, "rename", args, 2, 2)
	if err != nil {
		return err
	}
	_, err = sessionstore.AppendName(pos[0], s, pos[1])
	return err
}

func runLabel(ctx context.Context, e *env, args []string) error {
	pos, s, err := appendArgs(e, "label", args, 2, 3)
	if err != nil {
		return err
	}
	label := ""
	if len(pos) == 3 {
		label = pos[2]
	}
	_, err = sessionstore.AppendLabel(pos[0], s, pos[1], label)
	return err
}
