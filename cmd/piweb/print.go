package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"piweb/internal/session"
)

// printInfos prints a human listing: modified time, messages, name or first
// message, path.
func printInfos(e *env, infos []session.Info) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, in := range infos {
		title := in.Name
		if !in.HasName {
			title = in.FirstMessage
		}
		title = strings.Join(strings.Fields(title), " ")
		if len(title) > 60 {
			title = title[:57] + "..."
		}
		mod := time.UnixMilli(int64(in.Modified)).Local().Format("2006-01-02 15:04")
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", mod, in.MessageCount, title, in.Path)
	}
	return tw.Flush()
}
