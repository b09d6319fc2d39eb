package main

import (
	"context"

	"piweb/internal/index"
	"piweb/pisession"
)

// The read-only format commands: each prints what pi computes for a file,
// as JSON, so that conformance tests can compare piweb with pi directly.

func runContext(ctx context.Context, e *env, args []string) error {
	fs := newFlags("context", e)
	leaf := fs.String("leaf", "", "entry `id` to build the context at (default: the last entry)")
	pos, err := parseArgs(fs, args, 1, 1, usages["context"])
	if err != nil {
		return err
	}
	s, err := pisession.Load(pos[0])
	if err != nil {
		return err
	}
	b, _ := s.Context(*leaf).MarshalJSON()
	return writeJSONLine(e.stdout, b)
}

func runTree(ctx context.Context, e *env, args []string) error {
	pos, err := parseArgs(newFlags("tree", e), args, 1, 1, usages["tree"])
	if err != nil {
		return err
	}
	s, err := pisession.Load(pos[0])
	if err != nil {
		return err
	}
	return writeJSONLine(e.stdout, pisession.TreeJSON(s.Tree()))
}

func runLs(ctx context.Context, e *env, args []string) error {
	fs := newFlags("ls", e)
	asJSON := fs.Bool("json", false, "print pi's SessionInfo fields as a JSON array")
	scan := fs.Bool("scan", false, "read every session file instead of answering from the index")
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if *asJSON && !*scan {
		return lsJSON(ctx, e)
	}
	infos, err := listSessions(ctx, e, *scan)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := index.MarshalList(infos)
		if err != nil {
			return err
		}
		return writeJSONLine(e.stdout, b)
	}
	return printInfos(e, infos)
}
