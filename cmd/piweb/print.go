package main

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"piweb/pisession"
)

// printInfos prints a human listing: modified time, messages, name or first
// message, path.
func printInfos(e *env, infos []pisession.Info) error {
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
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", when(in.Modified), in.MessageCount, title, in.Path)
	}
	return tw.Flush()
}

// when formats a JavaScript time value in ms for a listing: "invalid date"
// for pi's Invalid Date (NaN, or beyond a Date's range).
func when(ms float64) string {
	if ms = pisession.TimeClip(ms); math.IsNaN(ms) {
		return "invalid date"
	}
	return time.UnixMilli(int64(ms)).Local().Format("2006-01-02 15:04")
}
