package main

import (
	"context"
	"fmt"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/index"
)

// cliQuery reads the search box's filters out of the search text as the
// page does (catalog.ParseSearch, dates in the local zone), says what was
// left out on stderr, and resolves project names over the index's
// sessions. ok is false when nothing can match (a project no session
// has, role:tool without a tool index).
func cliQuery(ctx context.Context, e *env, ix *index.Index, text string, tools bool) (index.Query, bool, error) {
	sq := catalog.ParseSearch(text, time.Local)
	var cwds []string
	if len(sq.Projects) > 0 {
		metas, err := ix.Sessions(ctx)
		if err != nil {
			return index.Query{}, false, err
		}
		for _, m := range metas {
			cwds = append(cwds, m.Info.Cwd)
		}
	}
	q, ok, warn := catalog.IndexQuery(sq, tools, func(names []string) []string { return catalog.MatchProjects(cwds, names) })
	for _, w := range append(sq.Warnings, warn) {
		if w != "" {
			fmt.Fprintln(e.stderr, "search:", w)
		}
	}
	return q, ok, nil
}

// flagDates applies --since and --until over the text's after: and
// before:.
func flagDates(q *index.Query, since, until string) error {
	for _, d := range []struct {
		s  string
		to *time.Time
	}{{since, &q.From}, {until, &q.To}} {
		t, err := parseDate(d.s)
		if err != nil {
			return err
		}
		if !t.IsZero() {
			*d.to = t
		}
	}
	return nil
}
