package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"piweb/internal/index"
	"piweb/pisession"
)

// The index commands: search answers from the session index, index builds
// it and reports its problems. Both bring the index up to date first, so a
// first run on many sessions takes a while and later runs are quick.

// cacheDir is os.UserCacheDir read through the command's environment.
func cacheDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		d, _ := os.UserCacheDir()
		return d
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Caches")
	}
	return filepath.Join(home, ".cache")
}

// openIndex opens the index of the agent dir of e's environment.
func openIndex(ctx context.Context, e *env, tools bool) (*index.Index, error) {
	o, err := indexOptions(e, tools)
	if err != nil {
		return nil, err
	}
	return index.Open(ctx, o)
}

// indexOptions are the index options of e's environment.
func indexOptions(e *env, tools bool) (index.Options, error) {
	agentDir := pisession.AgentDir(e.getenv)
	path, err := index.PathIn(cacheDir(e.getenv), agentDir, tools)
	return index.Options{
		AgentDir: agentDir, Getenv: e.getenv, Path: path, Tools: tools,
		Log: slog.New(slog.NewTextHandler(e.stderr, nil)),
	}, err
}

// listSessions is pi's listAll for ls: from the index, or with scan by
// reading every file.
func listSessions(ctx context.Context, e *env, scan bool) ([]pisession.Info, error) {
	if scan {
		infos := pisession.ListAll(pisession.AgentDir(e.getenv))
		if infos == nil {
			infos = []pisession.Info{} // pi prints [], not null
		}
		return infos, nil
	}
	ix, err := openIndex(ctx, e, false)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	return ix.List(ctx)
}

// lsJSON prints pi's listAll JSON from the index's stored elements: from
// the listing snapshot alone when no session file changed; without an
// index file, from a read of the files that changed (all of them when
// cold) that builds no index (index.SkimListJSON); else through the
// index, which reads only what changed.
func lsJSON(ctx context.Context, e *env) error {
	o, err := indexOptions(e, false)
	if err != nil {
		return err
	}
	// The quick answer allocates a few megabytes at most and the process
	// ends after it: collecting garbage would only cost time.
	gc := debug.SetGCPercent(-1)
	ok, err := index.WriteQuickListJSON(o, e.stdout)
	debug.SetGCPercent(gc)
	if ok || err != nil {
		return err
	}
	// Without an index yet, the listing is read without building one
	// (with the collector on: off, 4-5% less CPU on 500 files, but 25,000
	// files grew the heap to the soft limit, RSS 90 -> 207 MB).
	b, ok, err := index.SkimListJSON(ctx, o)
	if ok || err != nil {
		if err != nil {
			return err
		}
		return writeJSONLine(e.stdout, b)
	}
	ix, err := index.Open(ctx, o)
	if err != nil {
		return err
	}
	defer ix.Close()
	b, err = ix.ListJSON(ctx)
	if err != nil {
		return err
	}
	return writeJSONLine(e.stdout, b)
}

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlags("search", e)
	cwd := fs.String("cwd", "", "only sessions of this project `dir`")
	model := fs.String("model", "", "only sessions that used this `model` (provider/id or id)")
	since := fs.String("since", "", "only entries at or after this `date` (2006-01-02 or RFC 3339)")
	until := fs.String("until", "", "only entries before this `date`")
	limit := fs.Int("limit", 20, "number of hits")
	asJSON := fs.Bool("json", false, "print the hits as a JSON array")
	tools := fs.Bool("tools", false, "use the index that also holds tool calls and results")
	pos, err := parseArgs(fs, args, 1, -1, usages["search"])
	if err != nil {
		return err
	}
	var dates index.Query
	if err := flagDates(&dates, *since, *until); err != nil {
		return err
	}
	ix, err := openIndex(ctx, e, *tools)
	if err != nil {
		return err
	}
	defer ix.Close()
	if _, err := ix.Sync(ctx, true); err != nil {
		return err
	}
	q, ok, err := cliQuery(ctx, e, ix, strings.Join(pos, " "))
	if err != nil {
		return err
	}
	q.Cwd, q.Limit = *cwd, *limit
	if *model != "" {
		q.Model = *model
	}
	if !dates.From.IsZero() {
		q.From = dates.From
	}
	if !dates.To.IsZero() {
		q.To = dates.To
	}
	var hits []index.Hit
	if ok {
		a, err := ix.Answer(ctx, q)
		if err != nil {
			return err
		}
		hits = a.Hits
		if a.Partial {
			fmt.Fprintln(e.stderr, "partial results: the search stopped at its time limit; add words or filters to narrow it")
		}
		for _, p := range a.Wide {
			fmt.Fprintln(e.stderr, index.WideNote(p))
		}
	}
	if *asJSON {
		if hits == nil {
			hits = []index.Hit{}
		}
		b, err := json.Marshal(hits)
		if err != nil {
			return err
		}
		return writeJSONLine(e.stdout, b)
	}
	return printHits(e, hits)
}

func parseDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad date %q (want 2006-01-02 or RFC 3339)", s)
}

func printHits(e *env, hits []index.Hit) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, h := range hits {
		var b strings.Builder
		for _, s := range h.Snippet {
			t := squash(s.Text)
			if s.Match {
				lead, trail := t != strings.TrimLeft(t, " "), t != strings.TrimRight(t, " ")
				t = "[" + strings.TrimSpace(t) + "]"
				if lead {
					t = " " + t
				}
				if trail {
					t += " "
				}
			}
			b.WriteString(t)
		}
		branch := "branch"
		if !h.OnBranch {
			branch = "off-branch"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", hitTime(h.Timestamp), short(h.SessionID), h.EntryID, h.Role, branch, strings.TrimSpace(b.String()))
	}
	return tw.Flush()
}

// hitTime formats a hit's time: the index keeps 0 for an entry without a
// valid time, which is "no time", not the epoch.
func hitTime(ms int64) string {
	if ms == 0 {
		return "no time"
	}
	return when(float64(ms))
}

// squash turns each run of white space into one space, keeping a space at
// either end (where a snippet's parts meet) rather than dropping it.
func squash(s string) string { return spaceRE.ReplaceAllString(s, " ") }

var spaceRE = regexp.MustCompile(`\s+`)

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// gcForIndex lets the Go heap grow to three times what is live before a
// collection, not twice, while piweb index writes (unless GOGC says
// otherwise): the parse's garbage is most of the heap, and a cold index
// spends ~7% less CPU (BenchmarkColdIndex on 453 MB under the soft memory
// limit, which still bounds the heap: peak RSS 111 -> 148 MB; bench/NOTES
// "the writer's time"). It returns what restores the setting.
func gcForIndex(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(200)
	return func() { debug.SetGCPercent(old) }
}

func runIndex(ctx context.Context, e *env, args []string) error {
	fs := newFlags("index", e)
	status := fs.Bool("status", false, "report the index and the problems of session files, without updating")
	asJSON := fs.Bool("json", false, "print as JSON")
	tools := fs.Bool("tools", false, "the index that also holds tool calls and results")
	merge := fs.Bool("merge", false, "also merge the text index's parts a first index leaves (serve does it when idle)")
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	ix, err := openIndex(ctx, e, *tools)
	if err != nil {
		return err
	}
	defer ix.Close()
	var out any
	if *status {
		st, err := ix.Status(ctx)
		if err != nil {
			return err
		}
		out = st
		if !*asJSON {
			return printStatus(e, st)
		}
	} else {
		defer gcForIndex(e.getenv)()
		st, err := syncIndex(ctx, ix, *merge)
		if err != nil {
			return err
		}
		out = st
		if !*asJSON {
			return printSync(e, st)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return writeJSONLine(e.stdout, b)
}

// syncStats is what piweb index reports: the Sync's figures, and whether
// the text index waits for a merge (index.Tidy) and how long the merge
// took when it ran.
type syncStats struct {
	index.SyncStats
	MergePending bool          `json:"mergePending"`
	Merge        time.Duration `json:"mergeNs,omitempty"`
}

// syncIndex brings the index up to date, and with merge merges its text
// index's parts to the end.
func syncIndex(ctx context.Context, ix *index.Index, merge bool) (syncStats, error) {
	var st syncStats
	var err error
	if st.SyncStats, err = ix.Sync(ctx, true); err != nil {
		return st, err
	}
	if merge {
		start := time.Now()
		if err := ix.TidyAll(ctx); err != nil {
			return st, err
		}
		st.Merge = time.Since(start)
	}
	st.MergePending, err = ix.MergePending(ctx)
	return st, err
}

func printSync(e *env, st syncStats) error {
	fmt.Fprintf(e.stdout, "%d files, %d changed, %d removed; listing %v, text %v; %d bytes read\n",
		st.Files, st.Changed, st.Removed, st.Listing.Round(time.Millisecond), st.Text.Round(time.Millisecond), st.BytesRead)
	var err error
	switch {
	case st.MergePending:
		_, err = fmt.Fprintln(e.stdout, "text index: complete; its parts wait for a merge (piweb serve does it when idle, piweb index --merge now)")
	case st.Merge > 0:
		_, err = fmt.Fprintf(e.stdout, "text index: complete, merged in %v\n", st.Merge.Round(time.Millisecond))
	default:
		_, err = fmt.Fprintln(e.stdout, "text index: complete, merged")
	}
	return err
}

func printStatus(e *env, st index.Status) error {
	fmt.Fprintf(e.stdout, "index %s (%d bytes)\n%d files, %d listed, %d entries, %d with text not yet searchable\n",
		st.Path, st.DBBytes, st.Files, st.Listed, st.Entries, st.TextBehind)
	if st.MergePending {
		fmt.Fprintln(e.stdout, "the text index's parts wait for a merge (piweb index --merge)")
	}
	if len(st.Problems) == 0 {
		_, err := fmt.Fprintln(e.stdout, "no problems")
		return err
	}
	fmt.Fprintf(e.stdout, "%d files with problems:\n", len(st.Problems))
	for _, p := range st.Problems {
		fmt.Fprintf(e.stdout, "%s\n", p.Path)
		if p.Error != "" {
			fmt.Fprintf(e.stdout, "  unreadable: %s\n", p.Error)
		}
		for _, pr := range p.Problems {
			fmt.Fprintf(e.stdout, "  line %d: %s: %s\n", pr.Line, pr.Kind, pr.Message)
		}
	}
	return nil
}
