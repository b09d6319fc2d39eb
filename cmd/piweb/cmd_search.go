package main

import (
	"context"
	"fmt"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/index"
)

// cliQuery reads the search box's filters out of the search text as the
// page does (catalog.QueryOver, dates in the local zone) and says what was
// left out on stderr. ok is false when nothing can match (a project no
// session has, role:tool without a tool index).
func cliQuery(ctx context.Context, e *env, ix *index.Index, text string) (index.Query, bool, error) {
	q, ok, warnings, err := catalog.QueryOver(ctx, ix, text, time.Local)
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, "search:", w)
	}
	return q, ok, err
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
